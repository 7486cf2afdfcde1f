/**
 * Discovery never takes an appliance down: the gateway, with
 * VRA_API_GENERATION and NSX_API unset, in front of a vRA 7 whose Tomcat
 * guards every unauthenticated path (401 in HTML or JSON, 403, a redirect,
 * a login page) and of an NSX-v that guards NSX-T's path the same way; and
 * an appliance that cannot be reached (or answers 5xx) when first asked.
 * Everything through HTTP, asserting on what the simulators received.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GuardedAnswer, RedirectStatus } from '../../simulators/guarded-answer.ts';
import {
  simulatorUsers,
  startVraSimulator,
  type VraSimulator,
} from '../../simulators/vra/v7/index.ts';
import { startNsxtSimulator } from '../../simulators/nsx/t/index.ts';
import { basicAuthorization } from '../../src/http/auth.ts';
import { startStack, type Stack, type StackOptions } from '../helpers/stack.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const developer = simulatorUsers.find((user) => user.username.startsWith('developer'))!;

interface Shape {
  name: string;
  answer: GuardedAnswer;
  redirectStatus?: RedirectStatus;
  /** What the appliance answers a request without credential. */
  status: number;
}

const shapes: Shape[] = [
  { name: '404', answer: '404', status: 404 },
  { name: "Tomcat's 401 page", answer: '401-html', status: 401 },
  { name: 'a 401 in JSON', answer: '401-json', status: 401 },
  { name: "Tomcat's 403 page", answer: '403', status: 403 },
  ...([301, 302, 303, 307, 308] as const).map((redirectStatus) => ({
    name: `a ${redirectStatus} redirect`,
    answer: 'redirect' as const,
    redirectStatus,
    status: redirectStatus,
  })),
  { name: 'a 200 login page', answer: 'login-page', status: 200 },
];

/** The stack with the generations unset: the gateway asks both appliances. */
function undetected(options: Omit<StackOptions, 'configure'> = {}): Promise<Stack> {
  return startStack({
    ...options,
    env: { UPSTREAM_RETRIES: '0', ...options.env },
    configure: (config) => ({
      ...config,
      vra: { ...config.vra, generation: undefined },
      nsx: { ...config.nsx, api: undefined },
    }),
  });
}

function cookieOf(headers: Headers): string {
  const line = headers.getSetCookie().find((c) => c.startsWith('gateway_session='));
  return `gateway_session=${/^gateway_session=([^;]*)/.exec(line ?? '')?.[1] ?? ''}`;
}

const signIn = `mutation($u: String!, $p: String!) { signIn(username: $u, password: $p) { name } }`;
const entitled = '{ entitledCatalogItems(first: 50) { totalCount } }';
const catalog = '{ catalogItems(first: 2) { totalCount } providers(first: 1) { totalCount } }';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe.each(shapes)('a vRA 7 that answers an unauthenticated request with $name', (shape) => {
  const vra = {
    unauthenticated: shape.answer,
    ...(shape.redirectStatus === undefined ? {} : { redirectStatus: shape.redirectStatus }),
  };

  it('answers that way to GET /iaas/api/about itself', async () => {
    stack = await undetected({ vra });
    const answer = await fetch(new URL('/iaas/api/about', stack.vra.url), { redirect: 'manual' });
    await answer.arrayBuffer();
    expect(answer.status).toBe(shape.status);
  });

  it('serves signIn, the service account and the signed-in user as vRA 7, asking the generation once for requests in parallel', async () => {
    stack = await undetected({ vra });
    const s = stack;
    const [signedIn, service, alsoService] = await Promise.all([
      s.gql(signIn, { u: developer.username, p: developer.password }),
      s.gql(catalog),
      s.gql(entitled),
    ]);
    expect(signedIn.errors).toBeUndefined();
    expect(signedIn.data).toEqual({ signIn: { name: developer.username } });
    expect(service.errors).toBeUndefined();
    expect(service.data?.['catalogItems'].totalCount).toBeGreaterThan(0);
    expect(service.data?.['providers'].totalCount).toBeGreaterThan(0);
    expect(alsoService.errors).toBeUndefined();

    const mine = await s.gql(entitled, {}, { cookie: cookieOf(signedIn.headers) });
    expect(mine.errors).toBeUndefined();
    expect(mine.data?.['entitledCatalogItems'].totalCount).toBeGreaterThan(0);
    expect(mine.data?.['entitledCatalogItems'].totalCount).toBeLessThan(
      alsoService.data?.['entitledCatalogItems'].totalCount,
    );

    const abouts = s.vra.requestsTo('GET', '/iaas/api/about');
    expect(abouts).toHaveLength(1);
    expect(abouts[0]?.headers.authorization).toBeUndefined();
    expect(s.gateway.clients.vra.generation).toBe('7');
    expect(s.vra.requestsTo('POST', '/identity/api/tokens').length).toBeGreaterThanOrEqual(2);
  });

  it('serves the same through a batch of operations', async () => {
    stack = await undetected({ vra });
    const response = await stack.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify([
        { query: signIn, variables: { u: developer.username, p: developer.password } },
        { query: catalog },
        { query: entitled },
      ]),
    });
    const answers = (await response.json()) as Array<{ errors?: unknown; data?: unknown }>;
    expect(answers).toHaveLength(3);
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    expect(stack.vra.requestsTo('GET', '/iaas/api/about')).toHaveLength(1);
  });
});

interface Proxied {
  sim: VraSimulator;
  proxy: TcpProxy;
  stack: Stack;
  close(): Promise<void>;
}

/** A vRA 7 (401 page to the unauthenticated) reached through a TCP relay the test can cut. */
async function behindRelay(env: Record<string, string> = {}): Promise<Proxied> {
  const sim = await startVraSimulator({ unauthenticated: '401-html' });
  const proxy = await startTcpProxy(Number(sim.url.port));
  const gateway = await startStack({
    env: { UPSTREAM_RETRIES: '0', ...env },
    configure: (config) => ({
      ...config,
      vra: {
        ...config.vra,
        generation: undefined,
        url: new URL(`http://127.0.0.1:${proxy.port}`),
        username: sim.username,
        password: sim.password,
        tenant: sim.tenant,
      },
    }),
  });
  return {
    sim,
    proxy,
    stack: gateway,
    async close() {
      await gateway.close();
      await proxy.close();
      await sim.close();
    },
  };
}

describe('a vRA that gives no answer of its own when first asked', () => {
  let relayed: Proxied | undefined;
  afterEach(async () => {
    await relayed?.close();
    relayed = undefined;
  });

  const mixed =
    '{ catalogItems(first: 2) { totalCount } ipSets { id } workflows(first: 1) { totalCount } }';

  /** The first call: only catalogItems fails, with `code`; the generation stays unknown. */
  async function firstFailsAlone(r: Proxied, code: string): Promise<void> {
    const first = await r.stack.gql(mixed);
    expect(first.errors).toHaveLength(1);
    expect(first.errors?.[0]?.path).toEqual(['catalogItems']);
    expect(first.errors?.[0]?.extensions?.['code']).toBe(code);
    expect(first.data?.['ipSets'].length).toBeGreaterThan(0);
    expect(first.data?.['workflows'].totalCount).toBeGreaterThan(0);
    expect(r.stack.gateway.clients.vra.generation).toBeUndefined();
  }

  /** The next call asks again, finds vRA 7 and is served. */
  async function nextDetects(r: Proxied, abouts: number): Promise<void> {
    const [second, signedIn] = await Promise.all([
      r.stack.gql(mixed),
      r.stack.gql(signIn, { u: developer.username, p: developer.password }),
    ]);
    expect(second.errors).toBeUndefined();
    expect(second.data?.['catalogItems'].totalCount).toBeGreaterThan(0);
    expect(signedIn.errors).toBeUndefined();
    expect(r.stack.gateway.clients.vra.generation).toBe('7');
    expect(r.sim.requestsTo('GET', '/iaas/api/about')).toHaveLength(abouts);
    expect(r.stack.vra.requests).toHaveLength(0);
  }

  it('fails only the vRA fields while the connection is refused, then asks again and serves vRA 7', async () => {
    relayed = await behindRelay();
    relayed.proxy.cut();
    await firstFailsAlone(relayed, 'UPSTREAM_UNAVAILABLE');
    expect(relayed.sim.requests).toHaveLength(0);
    relayed.proxy.restore();
    await nextDetects(relayed, 1);
  });

  it.each([500, 502, 503, 504])(
    'takes a %i (a proxy before a booting appliance) for no answer: that call fails alone, the next asks again',
    async (status) => {
      relayed = await behindRelay();
      relayed.sim.faults.inject({
        method: 'GET',
        path: '/iaas/api/about',
        fault: { kind: 'status', status, body: '<html>starting</html>', contentType: 'text/html' },
        times: 1,
      });
      const first = await relayed.stack.gql(mixed);
      expect(first.errors?.map((e) => e.path)).toEqual([['catalogItems']]);
      expect(relayed.stack.gateway.clients.vra.generation).toBeUndefined();
      await nextDetects(relayed, 2);
    },
  );

  it('takes a timeout for no answer: that call fails alone, the next asks again', async () => {
    relayed = await behindRelay({ UPSTREAM_TIMEOUT_MS: '800' });
    relayed.sim.faults.inject({
      method: 'GET',
      path: '/iaas/api/about',
      fault: { kind: 'delay', ms: 2500 },
      times: 1,
    });
    await firstFailsAlone(relayed, 'UPSTREAM_TIMEOUT');
    await nextDetects(relayed, 2);
  });
});

const nsxShapes = shapes.filter((shape) => shape.answer !== '404');

describe.each(nsxShapes)("an NSX-v that answers NSX-T's path with $name", (shape) => {
  const nsx = {
    foreignPaths: shape.answer,
    ...(shape.redirectStatus === undefined ? {} : { redirectStatus: shape.redirectStatus }),
  };

  it('answers that way to GET /api/v1/node/version, with the credentials too', async () => {
    stack = await undetected({ nsx });
    const answer = await fetch(new URL('/api/v1/node/version', stack.nsx.url), {
      redirect: 'manual',
      headers: { authorization: basicAuthorization(stack.nsx.username, stack.nsx.password) },
    });
    await answer.arrayBuffer();
    expect(answer.status).toBe(shape.status);
  });

  it('serves ipSets and the other network fields in parallel as NSX-v, asking the generation once', async () => {
    stack = await undetected({ nsx });
    const answers = await Promise.all([
      stack.gql('{ ipSets { id addresses } }'),
      stack.gql('{ services { id } }'),
      stack.gql('{ ipSets { id } edges { id } }'),
    ]);
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    expect(answers[0].data?.['ipSets'].length).toBeGreaterThan(0);
    const probes = stack.nsx.requests.filter((r) => r.path === '/api/v1/node/version');
    expect(probes).toHaveLength(1);
    expect(stack.gateway.clients.nsx.probe.known).toBe('v');
    expect(
      stack.nsx.requests.filter((r) => r.path === '/api/2.0/services/ipset/scope/globalroot-0')
        .length,
    ).toBeGreaterThan(0);
  });
});

describe('an NSX manager that gives no answer of its own, or refuses the credential, when first asked', () => {
  it('takes a 503 for no answer: only the network field of that call fails, the next asks again and finds NSX-v', async () => {
    stack = await undetected({ nsx: { foreignPaths: '403' } });
    stack.nsx.faults.inject({
      method: 'GET',
      path: '/api/v1/node/version',
      fault: { kind: 'status', status: 503 },
      times: 1,
    });
    const first = await stack.gql('{ ipSets { id } catalogItems(first: 1) { totalCount } }');
    expect(first.errors?.map((e) => e.path)).toEqual([['ipSets']]);
    expect(first.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    expect(first.data?.['catalogItems'].totalCount).toBeGreaterThan(0);
    expect(stack.gateway.clients.nsx.probe.known).toBeUndefined();
    const second = await stack.gql('{ ipSets { id } }');
    expect(second.errors).toBeUndefined();
    expect(stack.gateway.clients.nsx.probe.known).toBe('v');
    expect(stack.nsx.requests.filter((r) => r.path === '/api/v1/node/version')).toHaveLength(2);
  });

  it("does not take NSX-T's refusal of a user's wrong credential for NSX-v: that call fails, the next finds NSX-T", async () => {
    const sim = await startNsxtSimulator();
    try {
      stack = await startStack({
        env: { UPSTREAM_RETRIES: '0' },
        configure: (config) => ({
          ...config,
          nsx: {
            ...config.nsx,
            url: sim.url,
            username: sim.username,
            password: sim.password,
            api: undefined,
          },
        }),
      });
      const refused = await stack.gql('{ ipSets { id } }', undefined, {
        'x-nsx-authorization': basicAuthorization('intruder', 'wrong'),
      });
      expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
      expect(stack.gateway.clients.nsx.probe.known).toBeUndefined();
      const served = await stack.gql('{ ipSets { id } }');
      expect(served.errors).toBeUndefined();
      expect(served.data?.['ipSets'].length).toBeGreaterThan(0);
      expect(stack.gateway.clients.nsx.probe.known).toBe('t');
      expect(sim.requests.filter((r) => r.path === '/api/v1/node/version')).toHaveLength(2);
      expect(stack.nsx.requests).toHaveLength(0);
    } finally {
      await stack?.close();
      stack = undefined;
      await sim.close();
    }
  });
});
