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
    // the sign-in form, hidden until the page knows there is no session; a POST form, so that
    // not even a submission before the script runs could put the password in a URL
    expect(html).toContain('<form id="sign-in-form" method="post">');
    expect(html).toMatch(/<input\s+id="username"[^>]*autocomplete="username"/);
    expect(html).toMatch(
      /<input\s+id="password"[^>]*type="password"[^>]*autocomplete="current-password"/,
    );
    expect(html).toMatch(/<section id="sign-in" hidden>/);
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
    expect(documents.length).toBeGreaterThanOrEqual(15);
    const { schema } = stack.gateway.yoga.getEnveloped();
    for (const document of documents) expect(validate(schema, parse(document))).toEqual([]);
  });

  it("signs in with the portal's own operations: the session cookie then shows that user's items", async () => {
    stack = await startStack();
    const source = readFileSync(
      new URL('../../examples/portal/operations.js', import.meta.url),
      'utf8',
    );
    const operations = Object.fromEntries(
      [...source.matchAll(/export const (\w+) = graphql\(`([^`]*)`\)/g)].map((m) => [m[1], m[2]]),
    );
    const run = (document: unknown, variables: Record<string, unknown>, cookie?: string) =>
      stack!.gql<any>(String(document), variables, cookie === undefined ? {} : { cookie });
    const anonymous = await run(operations.Viewer, {});
    expect(anonymous.data).toEqual({ viewer: null });

    const refused = await run(operations.SignIn, {
      username: 'developer@vsphere.local',
      password: 'wrong',
      tenant: 'vsphere.local',
    });
    expect(refused.errors?.map((e) => e.extensions?.['code'])).toEqual(['UNAUTHENTICATED']);
    expect(refused.headers.get('set-cookie')).toBeNull();

    const signedIn = await run(operations.SignIn, {
      username: 'developer@vsphere.local',
      password: 'developer-simulator',
      tenant: 'vsphere.local',
    });
    expect(signedIn.errors).toBeUndefined();
    expect(signedIn.data.signIn).toMatchObject({
      name: 'developer@vsphere.local',
      via: 'SESSION',
      tenant: 'vsphere.local',
      scopes: ['catalog:request', 'read', 'workflow:run'],
    });
    const setCookie = signedIn.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^gateway_session=[^;]+;.*HttpOnly/);
    expect(setCookie).toContain('SameSite=Strict');
    const cookie = setCookie.split(';')[0]!;

    const items = await run(operations.EntitledItems, {}, cookie);
    expect(items.errors).toBeUndefined();
    expect(items.data.viewer).toEqual({ name: 'developer@vsphere.local' });
    const names = items.data.entitledCatalogItems.nodes.map((n: { name: string }) => n.name);
    expect(names).toContain('CentOS 7 Machine');
    expect(names).not.toContain('Oracle Database (restricted)');
    const requests = await run(operations.MyRequests, {}, cookie);
    expect(requests.errors).toBeUndefined();
    expect(requests.data.viewer).toEqual({ name: 'developer@vsphere.local' });

    const signedOut = await run(operations.SignOut, {}, cookie);
    expect(signedOut.data).toEqual({ signOut: true });
    // the ended session's cookie: a 401 for anything but the open fields, which the portal takes to the sign-in form
    const ended = await run(operations.EntitledItems, {}, cookie);
    expect(ended.status).toBe(401);
    expect(ended.errors?.map((e) => e.extensions?.['code'])).toEqual(['UNAUTHENTICATED']);
    // without a cookie (cleared) the simulators' gateway answers as its service account: the
    // `viewer` that comes along is null, which the portal also takes to the sign-in form
    const cleared = await run(operations.EntitledItems, {});
    expect(cleared.data.viewer).toBeNull();
  });
});
