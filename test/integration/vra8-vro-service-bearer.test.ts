/**
 * The vRO service account under VRO_AUTH_MODE=vra-token on vRA 8: vRO 8
 * trusts vRA 8's tokens and refuses Basic (the simulator's vraTokensOnly),
 * so the gateway logs the vRO service account in at vRA 8 (found by asking
 * VRA_URL) and sends its bearer; on vRO's 401 it logs in once more, however
 * many calls were refused, and sends each call once more. On vRA 7, Basic
 * as before. Through HTTP, asserting on what vRO and vRA 8 received.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { basicAuthorization } from '../../src/http/auth.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import {
  startVra8Simulator,
  vra8Users,
  type Vra8Simulator,
} from '../../simulators/vra/v8/index.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const vroAccount = { username: 'vro-service@vsphere.local', password: 'vro-service-simulator' };
const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));

interface Harness {
  sim: Vra8Simulator;
  stack: Stack;
  /** While set, vRO refuses every bearer. */
  refuse: { all: boolean };
  close(): Promise<void>;
}

async function start(): Promise<Harness> {
  const sim = await startVra8Simulator({ users: [...vra8Users, vroAccount] });
  const refuse = { all: false };
  const stack = await startStack({
    env: { VRO_AUTH_MODE: 'vra-token', UPSTREAM_RETRIES: '0' },
    vro: {
      ...vroAccount,
      vraTokensOnly: true,
      bearerUser: (token) => (refuse.all ? undefined : sim.bearerUser(token)),
    },
    configure: (config) => ({
      ...config,
      vra: {
        ...config.vra,
        generation: undefined,
        url: sim.url,
        username: sim.username,
        password: sim.password,
      },
    }),
  }).catch(async (error: unknown) => {
    await sim.close();
    throw error;
  });
  return {
    sim,
    stack,
    refuse,
    close: async () => {
      await stack.close();
      await sim.close();
    },
  };
}

/** The CSP logins of the vRO service account that vRA 8 received. */
function vroLogins(sim: Vra8Simulator): RecordedRequest[] {
  return sim
    .requestsTo('POST', '/csp/gateway/am/api/login')
    .filter(
      (r) =>
        (JSON.parse(r.body.toString('utf8')) as { username: string }).username ===
        vroAccount.username,
    );
}

function schemeAndUser(sim: Vra8Simulator, request: RecordedRequest): string {
  const authorization = request.headers.authorization ?? '';
  const bearer = /^Bearer (\S+)$/.exec(authorization)?.[1];
  return bearer === undefined
    ? (authorization.split(' ')[0] ?? 'none')
    : `Bearer ${sim.bearerUser(bearer) ?? '?'}`;
}

const run = `mutation($w: ID!, $i: [WorkflowParameterInput!]) {
  runWorkflow(workflowId: $w, inputs: $i) { execution { id } } }`;

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the vRO service account on vRA 8 with VRO_AUTH_MODE=vra-token', () => {
  it('reaches vRO with its own vRA 8 bearer, never Basic, through POST, GET, a batch and in parallel, with one login', async () => {
    harness = await start();
    const { stack, sim } = harness;
    const get = stack.fetch(
      `/graphql?query=${encodeURIComponent('{ workflows(first: 3) { totalCount } }')}`,
      { headers: { accept: 'application/json' } },
    );
    const batch = stack.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify([
        { query: '{ workflows(first: 2) { totalCount } }' },
        { query: `{ workflow(id: "${echo}") { id name } }` },
      ]),
    });
    const [listed, ran, got, batched] = await Promise.all([
      stack.gql('{ workflows(first: 1) { totalCount } }'),
      stack.gql(run, { w: echo, i: [{ name: 'text', type: 'string', value: 'as the service' }] }),
      get.then((r) => r.json() as Promise<{ errors?: unknown }>),
      batch.then((r) => r.json() as Promise<Array<{ errors?: unknown }>>),
    ]);
    expect(listed.errors).toBeUndefined();
    expect(ran.errors).toBeUndefined();
    expect(got.errors).toBeUndefined();
    for (const answer of batched) expect(answer.errors).toBeUndefined();

    const calls = stack.vro.requests.filter((r) => r.path !== '/vco/api/');
    expect(calls.length).toBeGreaterThanOrEqual(5);
    for (const call of calls)
      expect(schemeAndUser(sim, call)).toBe(`Bearer ${vroAccount.username}`);
    expect(vroLogins(sim)).toHaveLength(1);
    expect(sim.requestsTo('GET', '/iaas/api/about')).toHaveLength(1);
    expect(stack.gateway.clients.vra.generation).toBe('8');
    const runs = stack.vro.executions;
    expect(runs.at(-1)?.startedBy).toBe(vroAccount.username);
  });

  it('logs in to vRA 8 once when vRO refuses the bearer, and sends each refused call once more', async () => {
    harness = await start();
    const { stack, sim } = harness;
    expect((await stack.gql('{ workflows(first: 1) { totalCount } }')).errors).toBeUndefined();
    expect(vroLogins(sim)).toHaveLength(1);
    const before = stack.vro.requests.length;
    sim.expireTokensOf(vroAccount.username);

    const answers = await Promise.all([
      stack.gql('{ workflows(first: 1) { totalCount } }'),
      stack.gql('{ workflows(first: 2) { totalCount } }'),
      stack.gql(`{ workflow(id: "${echo}") { id } }`),
      stack.gql(run, { w: echo, i: [{ name: 'text', type: 'string', value: 'after expiry' }] }),
    ]);
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    expect(vroLogins(sim)).toHaveLength(2);
    const after = stack.vro.requests.slice(before);
    for (const request of after) expect(request.headers.authorization).toMatch(/^Bearer /);
    const key = (r: RecordedRequest): string => `${r.method} ${r.rawPath}?${r.query.toString()}`;
    const refused = after.filter((r) => schemeAndUser(sim, r) !== `Bearer ${vroAccount.username}`);
    // each call refused with the expired bearer went once more, with the new one, and no third time
    expect(refused.length).toBeGreaterThan(0);
    for (const request of refused) {
      const again = after.filter((r) => key(r) === key(request));
      expect(again.map((r) => schemeAndUser(sim, r))).toEqual([
        'Bearer ?',
        `Bearer ${vroAccount.username}`,
      ]);
    }
    expect(stack.vro.executions.filter((e) => e.workflowId === echo)).toHaveLength(1);
  });

  it('sends a call refused with a fresh bearer no third time: UNAUTHENTICATED, and the next call logs in again', async () => {
    harness = await start();
    const { stack, sim, refuse } = harness;
    expect((await stack.gql('{ workflows(first: 1) { totalCount } }')).errors).toBeUndefined();
    const before = stack.vro.requests.length;
    refuse.all = true;
    const refused = await stack.gql('{ workflows(first: 2) { totalCount } }');
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(stack.vro.requests.length - before).toBe(2);
    expect(vroLogins(sim)).toHaveLength(2);
    refuse.all = false;
    expect((await stack.gql('{ workflows(first: 3) { totalCount } }')).errors).toBeUndefined();
    expect(vroLogins(sim)).toHaveLength(3);
    expect(JSON.stringify(refused)).not.toContain(sim.issuedTokens().at(-1) ?? 'no token');
  });

  it('imports a package (a streamed multipart body) with the bearer, and does not send it again once refused: the next call logs in afresh', async () => {
    harness = await start();
    const { stack, sim } = harness;
    const upload = async (): Promise<{
      errors?: Array<{ extensions?: Record<string, unknown> }>;
    }> => {
      const body = new FormData();
      body.append(
        'operations',
        JSON.stringify({
          query: 'mutation($f: File!) { importPackage(file: $f, overwrite: true) { imported } }',
          variables: { f: null },
        }),
      );
      body.append('map', JSON.stringify({ 0: ['variables.f'] }));
      body.append('0', new File([samplePackage], 'net.powervro.tests.package'));
      const response = await stack.fetch('/graphql', { method: 'POST', body });
      return (await response.json()) as {
        errors?: Array<{ extensions?: Record<string, unknown> }>;
      };
    };
    expect((await upload()).errors).toBeUndefined();
    const imports = () => stack.vro.requests.filter((r) => r.path === '/vco/api/packages');
    expect(imports().map((r) => schemeAndUser(sim, r))).toEqual([`Bearer ${vroAccount.username}`]);

    sim.expireTokensOf(vroAccount.username);
    const refused = await upload();
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(imports()).toHaveLength(2);
    expect(vroLogins(sim)).toHaveLength(1);
    expect((await upload()).errors).toBeUndefined();
    expect(
      imports()
        .map((r) => schemeAndUser(sim, r))
        .at(-1),
    ).toBe(`Bearer ${vroAccount.username}`);
    expect(vroLogins(sim)).toHaveLength(2);
  });

  it('is refused Basic by a vRO that trusts vRA 8 tokens only (the strict simulator)', async () => {
    harness = await start();
    const answer = await fetch(new URL('/vco/api/workflows', `${harness.stack.vro.url.href}/`), {
      headers: {
        accept: 'application/json',
        authorization: basicAuthorization(vroAccount.username, vroAccount.password),
      },
    });
    await answer.arrayBuffer();
    expect(answer.status).toBe(401);
  });
});

describe('the vRO service account on vRA 7 with VRO_AUTH_MODE=vra-token', () => {
  it('still reaches vRO with Basic (vRO 7 checks it against vRA 7), after asking the generation', async () => {
    const stack = await startStack({
      env: { VRO_AUTH_MODE: 'vra-token' },
      configure: (config) => ({ ...config, vra: { ...config.vra, generation: undefined } }),
    });
    try {
      expect((await stack.gql('{ workflows(first: 1) { totalCount } }')).errors).toBeUndefined();
      const calls = stack.vro.requests.filter((r) => r.path !== '/vco/api/');
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        expect(call.headers.authorization).toBe(
          basicAuthorization(stack.vro.username, stack.vro.password),
        );
      }
      expect(stack.vra.requestsTo('GET', '/iaas/api/about')).toHaveLength(1);
    } finally {
      await stack.close();
    }
  });
});
