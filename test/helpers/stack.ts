import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { AuditLog, type AuditEvent } from '../../src/audit/audit-log.ts';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Env } from '../../src/config.ts';
import type { GatewayConfig } from '../../src/gateway-config.ts';
import { createLogger, type Logger } from '../../src/observability/logger.ts';
import type { RemoteStore } from '../../src/cache/remote-store.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/server.ts';
import {
  startNsxSimulator,
  type NsxSimulator,
  type NsxSimulatorOptions,
} from '../../simulators/nsx/v/index.ts';
import {
  startVraSimulator,
  type VraSimulator,
  type VraSimulatorOptions,
} from '../../simulators/vra/v7/index.ts';
import {
  startVroSimulator,
  type VroSimulator,
  type VroSimulatorOptions,
} from '../../simulators/vro/index.ts';

export interface GraphQLAnswer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  data: T | null | undefined;
  errors:
    | Array<{
        message: string;
        path?: Array<string | number>;
        extensions?: Record<string, unknown>;
      }>
    | undefined;
}

export interface Stack {
  vro: VroSimulator;
  vra: VraSimulator;
  nsx: NsxSimulator;
  config: GatewayConfig;
  gateway: Gateway;
  /** The audit events the gateway wrote (AUDIT_LOG is a memory stream unless the env names a file). */
  audit: AuditEvent[];
  /** Sends one GraphQL operation through the gateway (yoga.fetch, real HTTP semantics, no port). */
  gql<T = Record<string, any>>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphQLAnswer<T>>;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface StackOptions {
  /** Environment variables for loadConfig (upstream URLs are set to the simulators). */
  env?: Env;
  vro?: VroSimulatorOptions;
  vra?: VraSimulatorOptions;
  /** Adjusts the gateway's configuration once it points at the simulators (e.g. wrong credentials). */
  configure?: (config: GatewayConfig) => GatewayConfig;
  nsx?: NsxSimulatorOptions;
  /** Where the gateway logs (default: nowhere). */
  logger?: Logger;
  /** The replicas' shared store (a MemoryRedis replica's view); default: none. */
  remote?: RemoteStore;
  /** Features the gateway is composed without (a benchmark's comparison). */
  without?: GatewayOptions['without'];
}

/**
 * The variables that point a gateway (a spawned process, or loadConfig) at the
 * three simulators, which speak the first generation (vRA 7, NSX-v): no
 * generation is asked of them.
 */
export function simulatorsEnv(sims: Pick<Stack, 'vro' | 'vra' | 'nsx'>): Record<string, string> {
  const { vro, vra, nsx } = sims;
  return {
    VRO_URL: vro.url.href,
    VRO_USERNAME: vro.username,
    VRO_PASSWORD: vro.password,
    VRA_URL: vra.url.href,
    VRA_USERNAME: vra.username,
    VRA_PASSWORD: vra.password,
    VRA_TENANT: vra.tenant,
    VRA_API_GENERATION: '7',
    NSX_URL: nsx.url.href,
    NSX_USERNAME: nsx.username,
    NSX_PASSWORD: nsx.password,
    NSX_API: 'v',
  };
}

/** Requests the three simulators have received so far. */
export function upstreamCalls(stack: Pick<Stack, 'vro' | 'vra' | 'nsx'>): number {
  return stack.vro.requests.length + stack.vra.requests.length + stack.nsx.requests.length;
}

/** The three simulators on loopback ports and a gateway configured against them. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const [vro, vra, nsx] = await Promise.all([
    startVroSimulator(options.vro),
    startVraSimulator(options.vra),
    startNsxSimulator(options.nsx),
  ]);
  const base = loadConfig({ ...options.env });
  const simulated: GatewayConfig = {
    ...base,
    vro: { ...base.vro, url: vro.url, username: vro.username, password: vro.password },
    // The simulators speak vRA 7 and NSX-v: no generation probe unless a test asks for one (`configure`).
    vra: {
      ...base.vra,
      generation: base.vra.generation ?? '7',
      url: vra.url,
      username: vra.username,
      password: vra.password,
      tenant: vra.tenant,
    },
    nsx: {
      ...base.nsx,
      api: base.nsx.api ?? 'v',
      url: nsx.url,
      username: nsx.username,
      password: nsx.password,
    },
  };
  const config = options.configure?.(simulated) ?? simulated;
  const audit: AuditEvent[] = [];
  const gateway = createGateway(config, {
    logger: options.logger ?? createLogger('silent'),
    ...(options.remote === undefined ? {} : { remote: options.remote }),
    ...(options.without === undefined ? {} : { without: options.without }),
    ...(options.env?.['AUDIT_LOG'] === undefined ? { audit: memoryAuditLog(audit) } : {}),
  });
  const fetchGateway = (path: string, init?: RequestInit): Promise<Response> =>
    Promise.resolve(
      gateway.yoga.fetch(new Request(`http://gateway.test${path}`, withCsrfHeader(init))),
    );
  return {
    vro,
    vra,
    nsx,
    config,
    gateway,
    audit,
    fetch: fetchGateway,
    async gql(query, variables, headers) {
      const response = await fetchGateway('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await response.json()) as { data?: any; errors?: GraphQLAnswer['errors'] };
      return {
        status: response.status,
        headers: response.headers,
        data: body.data,
        errors: body.errors,
      };
    },
    async close() {
      await gateway.close();
      await Promise.all([vro.close(), vra.close(), nsx.close()]);
    },
  };
}

/** Serves a gateway on a loopback port, for tests that need a real socket (client disconnects, SSE). */
export async function listen(
  gateway: Gateway,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(gateway.requestListener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An audit log whose events land in `events`, parsed from the lines it writes. */
export function memoryAuditLog(events: AuditEvent[]): AuditLog {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line !== '') events.push(JSON.parse(line) as AuditEvent);
      }
      done();
    },
  });
  return new AuditLog('stdout', { stdout: stream });
}

/** The tests' client behaves like a GraphQL client library: it sends the CSRF-prevention header. */
function withCsrfHeader(init: RequestInit | undefined): RequestInit {
  const headers = new Headers(init?.headers);
  if (!headers.has('x-graphql-csrf')) headers.set('x-graphql-csrf', '1');
  return { ...init, headers };
}
