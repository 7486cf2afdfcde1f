import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../../src/config.ts';
import type { GatewayConfig } from '../../src/gateway-config.ts';
import { upstreamHttpOptions } from '../../src/http/upstream-options.ts';

/** The configuration with every upstream given an address, as main.ts does. */
const gatewayConfig = (config: Config): GatewayConfig => {
  const url = new URL('http://127.0.0.1:1/api');
  return {
    ...config,
    vro: { ...config.vro, url },
    vra: { ...config.vra, url },
    nsx: { ...config.nsx, url },
  };
};

describe('loadConfig', () => {
  it('uses the runtime contract defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.port).toBe(4000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.upstreamTimeoutMs).toBe(30000);
    expect(config.vro.url).toBeUndefined();
    expect(config.vra.iaasProviderName).toBe('iaas-service');
    expect(config.nsx.edgeApiVersion).toBeUndefined();
    expect(config.auth.tokens).toEqual([]);
    expect(config.graphqlJit).toBe(true);
    expect(config.workflowDetailCacheTtlMs).toBe(300_000);
  });

  it('reads GRAPHQL_JIT and WORKFLOW_DETAIL_CACHE_TTL_MS', () => {
    expect(loadConfig({ GRAPHQL_JIT: 'false' }).graphqlJit).toBe(false);
    expect(loadConfig({ WORKFLOW_DETAIL_CACHE_TTL_MS: '0' }).workflowDetailCacheTtlMs).toBe(0);
  });

  it('uses the documented resilience defaults (docs/configuration.md), the same the seam takes for an option left out', () => {
    const { resilience } = loadConfig({});
    expect([
      resilience.retries,
      resilience.maxConcurrent,
      resilience.minConcurrent,
      resilience.maxQueue,
    ]).toEqual([2, 256, 4, 256]);
    expect([resilience.circuitFailureThreshold, resilience.circuitResetMs]).toEqual([5, 10_000]);
    expect([resilience.maxPages, resilience.maxListBytes]).toEqual([100, 64 * 1024 * 1024]);
    expect(upstreamHttpOptions(gatewayConfig(loadConfig({})), 'vro')).toMatchObject({
      timeoutMs: 30_000,
      retry: { retries: 2, baseDelayMs: 100, maxDelayMs: 2000 },
      circuit: { failureThreshold: 5, resetMs: 10_000 },
      concurrency: { maxConcurrent: 256, minConcurrent: 4, maxQueue: 256 },
      paging: { maxPages: 100, maxBytes: 64 * 1024 * 1024 },
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['UPSTREAM_TIMEOUT_MS', '0'],
    ['UPSTREAM_MAX_PAGES', '0'],
    ['UPSTREAM_MAX_LIST_BYTES', 'lots'],
    ['VRO_URL', 'not a url'],
    ['VRA_URL', 'ftp://vra.example'],
    ['NSX_URL', 'https://admin:secret@nsx.example'],
    ['NSX_EDGE_API_VERSION', 'v4'],
    ['VRA_API_GENERATION', '8.1'],
    ['NSX_API', 'x'],
    ['LOG_LEVEL', 'chatty'],
    ['GRAPHQL_JIT', 'sometimes'],
    ['WORKFLOW_DETAIL_CACHE_TTL_MS', '-1'],
  ])('stops on a bad %s and names the variable', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^${variable} `));
  });

  it('leaves the generations to be asked of the appliances unless VRA_API_GENERATION or NSX_API says', () => {
    expect(loadConfig({}).vra.generation).toBeUndefined();
    expect(loadConfig({}).nsx.api).toBeUndefined();
    const set = loadConfig({ VRA_API_GENERATION: '8', NSX_API: 't' });
    expect([set.vra.generation, set.nsx.api]).toEqual(['8', 't']);
  });

  it('never repeats a password given in a URL', () => {
    expect(() => loadConfig({ NSX_URL: 'https://admin:s3cr3t@nsx.example' })).toThrow(
      /^(?!.*s3cr3t)/,
    );
  });

  it('reads the upstream API roots without a trailing slash', () => {
    const config = loadConfig({ VRO_URL: 'https://vro.example:8281/vco/api/' });
    expect(config.vro.url?.href).toBe('https://vro.example:8281/vco/api');
  });

  it('splits GATEWAY_TOKENS on commas and drops blanks', () => {
    expect(loadConfig({ GATEWAY_TOKENS: ' a, b ,,c ' }).auth.tokens.map((t) => t.token)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });
});

describe('loadConfig exposure rules', () => {
  const credentials = { HOST: '0.0.0.0', NSX_USERNAME: 'admin', NSX_PASSWORD: 'pw' };

  it('refuses a non-loopback HOST with service credentials and no client authentication', () => {
    expect(() => loadConfig(credentials)).toThrow(/^HOST .*GATEWAY_TOKENS/);
  });

  it('serves a non-loopback HOST when client tokens are set', () => {
    expect(loadConfig({ ...credentials, GATEWAY_TOKENS: 't1' }).host).toBe('0.0.0.0');
  });

  it('serves a non-loopback HOST when explicitly allowed', () => {
    expect(
      loadConfig({ ...credentials, GATEWAY_ALLOW_UNAUTHENTICATED: 'true' }).allowUnauthenticated,
    ).toBe(true);
  });

  it('serves loopback with credentials and no tokens', () => {
    expect(loadConfig({ ...credentials, HOST: '127.0.0.1' }).host).toBe('127.0.0.1');
  });

  it('refuses a CA file that holds no certificate, naming the variable', () => {
    expect(() => loadConfig({ VRA_CA_FILE: 'package.json' })).toThrow(/^VRA_CA_FILE /);
  });

  it('refuses a flag that is neither true nor false', () => {
    expect(() => loadConfig({ NSX_TLS_INSECURE: 'maybe' })).toThrow(/^NSX_TLS_INSECURE /);
  });
});
