import { readFileSync } from 'node:fs';
import { parse, validate } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('PORTAL', () => {
  it('is on by default when every upstream is a built-in simulator, off when one is real', () => {
    expect(loadConfig({}).portal).toBe(true);
    expect(loadConfig({ VRO_URL: 'https://vro.example:8281/vco/api' }).portal).toBe(false);
    expect(loadConfig({ NSX_URL: 'https://nsx.example' }).portal).toBe(false);
    expect(loadConfig({ VRA_URL: 'https://vra.example', PORTAL: 'true' }).portal).toBe(true);
    expect(loadConfig({ PORTAL: 'false' }).portal).toBe(false);
  });

  it('stops start-up on a value that is not a boolean, naming the variable', () => {
    expect(() => loadConfig({ PORTAL: 'sometimes' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORTAL: 'sometimes' })).toThrow(/^PORTAL /);
  });
});

describe('/portal', () => {
  it('serves the page, its modules and its style from the gateway under a strict content security policy', async () => {
    stack = await startStack();
    const bare = await stack.fetch('/portal', { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/portal/');
    const page = await stack.fetch('/portal/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script type="module" src="portal.js"></script>');
    expect(html).not.toMatch(/https?:\/\//);
    for (const name of ['portal.js', 'client.js', 'dom.js', 'forms.js', 'operations.js']) {
      const script = await stack.fetch(`/portal/${name}`);
      expect(script.status, name).toBe(200);
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(await script.text()).toBe(
        readFileSync(new URL(`../../examples/portal/${name}`, import.meta.url), 'utf8'),
      );
    }
    expect((await stack.fetch('/portal/portal.css')).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
  });

  it('serves nothing else: no generated TypeScript, no configuration, no path out of the folder', async () => {
    stack = await startStack();
    for (const path of [
      '/portal/generated/gql.ts',
      '/portal/tsconfig.json',
      '/portal/%2e%2e/%2e%2e/src/config.ts',
      '/portal/..%2f..%2fpackage.json',
      '/portal/nope.js',
    ]) {
      expect((await stack.fetch(path)).status, path).toBe(404);
    }
  });

  it('is served without a gateway token when GATEWAY_TOKENS is set; its operations still need one', async () => {
    stack = await startStack({ env: { GATEWAY_TOKENS: 'portal-test-token' } });
    expect((await stack.fetch('/portal/')).status).toBe(200);
    expect((await stack.fetch('/portal/client.js')).status).toBe(200);
    const refused = await stack.gql<any>('{ workflows(first: 1) { totalCount } }');
    expect(refused.status).toBe(401);
    const allowed = await stack.gql<any>('{ workflows(first: 1) { totalCount } }', undefined, {
      authorization: 'Bearer portal-test-token',
    });
    expect(allowed.errors).toBeUndefined();
  });

  it('is absent when PORTAL=false', async () => {
    stack = await startStack({ env: { PORTAL: 'false' } });
    expect((await stack.fetch('/portal/')).status).toBe(404);
    expect((await stack.fetch('/portal/portal.js')).status).toBe(404);
  });

  it("holds operations that all fit the gateway's schema", async () => {
    stack = await startStack();
    const source = readFileSync(
      new URL('../../examples/portal/operations.js', import.meta.url),
      'utf8',
    );
    const documents = [...source.matchAll(/graphql\(`([^`]*)`\)/g)].map((match) => match[1] ?? '');
    expect(documents.length).toBeGreaterThanOrEqual(11);
    const { schema } = stack.gateway.yoga.getEnveloped();
    for (const document of documents) expect(validate(schema, parse(document))).toEqual([]);
  });
});
