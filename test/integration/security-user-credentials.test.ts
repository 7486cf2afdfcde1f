import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import type { VraSimulator } from '../../simulators/vra/v7/index.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, startStack, type GraphQLAnswer, type Stack } from '../helpers/stack.ts';
import { providerListCalls, tokenRequests } from '../helpers/vra.ts';
import { until } from '../helpers/wait.ts';

const alice = { username: 'alice', password: 'alice-secret-1' };
const bob = { username: 'bob', password: 'bob-secret-2' };
const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';

const basic = (account: { username: string; password: string }): string =>
  `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`;

/** A stack whose simulators know alice and bob besides the gateway's service accounts. */
async function startTwoUserStack(env: Record<string, string> = {}): Promise<Stack> {
  const linked: { vra?: VraSimulator } = {};
  const stack = await startStack({
    env,
    vro: {
      users: [alice, bob],
      bearerUser: (token) => linked.vra?.tokenUser(token),
      manualClock: true,
      stepMs: 1000,
    },
    vra: { users: [alice, bob] },
    nsx: { users: [alice, bob] },
  });
  linked.vra = stack.vra;
  return stack;
}

/** Logs in to the vRA simulator directly, as a front-end would, and answers the user's bearer value. */
async function vraBearer(sim: VraSimulator, account: { username: string; password: string }) {
  const response = await fetch(new URL('/identity/api/tokens', sim.url), {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ ...account, tenant: sim.tenant }),
  });
  expect(response.status).toBe(200);
  const { id } = (await response.json()) as { id: string };
  return `Bearer ${id}`;
}

const since = (requests: RecordedRequest[], from: number) => requests.slice(from);
const authorizations = (requests: RecordedRequest[]) => [
  ...new Set(requests.map((r) => r.headers.authorization)),
];

function expectNoCredentials(answer: GraphQLAnswer, ...secrets: string[]): void {
  const text = JSON.stringify(answer);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describe('per-user upstream credentials', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTwoUserStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  it("sends each user's X-Nsx-Authorization to NSX as Authorization, the service account otherwise", async () => {
    const query = '{ ipSets { id } }';
    for (const [headers, expected] of [
      [{ 'x-nsx-authorization': basic(alice) }, basic(alice)],
      [{ 'x-nsx-authorization': basic(bob) }, basic(bob)],
      [{}, basic(stack.nsx)],
    ] as const) {
      const from = stack.nsx.requests.length;
      const answer = await stack.gql(query, {}, headers);
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.['ipSets']).not.toHaveLength(0);
      expect(authorizations(since(stack.nsx.requests, from))).toEqual([expected]);
    }
  });

  it('answers UNAUTHENTICATED to a user whose NSX password is wrong, where the service account works', async () => {
    const wrong = basic({ ...alice, password: 'guess' });
    const from = stack.nsx.requests.length;
    const refused = await stack.gql('{ ipSets { id } }', {}, { 'x-nsx-authorization': wrong });
    expect(refused.data?.['ipSets']).toBeNull();
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(authorizations(since(stack.nsx.requests, from))).toEqual([wrong]);
    expectNoCredentials(refused, wrong, 'guess');

    const served = await stack.gql('{ ipSets { id } }');
    expect(served.errors).toBeUndefined();
  });

  it('runs a workflow as the user of X-Vro-Authorization: vRO records that user as its starter', async () => {
    const from = stack.vro.requests.length;
    const answer = await stack.gql<any>(
      'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
      { w: echo },
      { 'x-vro-authorization': basic(bob) },
    );
    expect(answer.errors).toBeUndefined();
    const id = answer.data?.runWorkflow.execution.id as string;
    expect(stack.vro.executions.find((e) => e.id === id)?.startedBy).toBe('bob');
    expect(authorizations(since(stack.vro.requests, from))).toEqual([basic(bob)]);
  });

  it('answers UNAUTHENTICATED to a user whose vRO password is wrong, where the service account works', async () => {
    const wrong = basic({ ...bob, password: 'guess' });
    const refused = await stack.gql(
      '{ workflows(first: 1) { totalCount } }',
      {},
      { 'x-vro-authorization': wrong },
    );
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expectNoCredentials(refused, wrong, 'guess');
    const served = await stack.gql('{ workflows(first: 1) { totalCount } }');
    expect(served.errors).toBeUndefined();
  });

  it("forwards a user's X-Vra-Authorization bearer to vRA as is and asks for no token", async () => {
    const bearer = await vraBearer(stack.vra, alice);
    const tokensBefore = tokenRequests(stack.vra).length;
    const from = stack.vra.requests.length;
    const answer = await stack.gql(
      '{ providers(first: 5) { totalCount } }',
      {},
      { 'x-vra-authorization': bearer },
    );
    expect(answer.errors).toBeUndefined();
    expect(tokenRequests(stack.vra)).toHaveLength(tokensBefore);
    const sent = since(stack.vra.requests, from);
    expect(sent.length).toBeGreaterThan(0);
    expect(authorizations(sent)).toEqual([bearer]);
  });

  it("never lends the cached service token to a user, nor a user's token to the service account", async () => {
    const query = '{ providers(first: 5) { totalCount } }';
    const bearer = await vraBearer(stack.vra, bob);
    const serviceFrom = stack.vra.requests.length;
    expect((await stack.gql(query)).errors).toBeUndefined();
    const serviceBearer = authorizations(
      since(stack.vra.requests, serviceFrom).filter((r) => r.method === 'GET'),
    );
    expect(serviceBearer).toHaveLength(1);
    const tokensAfterService = tokenRequests(stack.vra).length;

    const userFrom = stack.vra.requests.length;
    expect((await stack.gql(query, {}, { 'x-vra-authorization': bearer })).errors).toBeUndefined();
    const userCalls = since(stack.vra.requests, userFrom);
    expect(userCalls.length).toBeGreaterThan(0);
    expect(authorizations(userCalls)).toEqual([bearer]);

    const againFrom = stack.vra.requests.length;
    const again = await stack.gql('{ catalogItems(first: 1) { totalCount } }');
    expect(again.errors).toBeUndefined();
    expect(authorizations(since(stack.vra.requests, againFrom))).toEqual(serviceBearer);
    expect(tokenRequests(stack.vra)).toHaveLength(tokensAfterService);
  });

  it("answers UNAUTHENTICATED to a user's expired vRA bearer without renewing it or using the service token", async () => {
    const bearer = await vraBearer(stack.vra, alice);
    const token = bearer.slice('Bearer '.length);
    const revoked = await fetch(new URL(`/identity/api/tokens/${token}`, stack.vra.url), {
      method: 'DELETE',
    });
    expect(revoked.status).toBe(204);
    const tokensBefore = tokenRequests(stack.vra).length;
    const from = stack.vra.requests.length;
    const answer = await stack.gql(
      '{ catalogItems(first: 1) { totalCount } }',
      {},
      { 'x-vra-authorization': bearer },
    );
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expectNoCredentials(answer, token);
    expect(tokenRequests(stack.vra)).toHaveLength(tokensBefore);
    expect(authorizations(since(stack.vra.requests, from))).toEqual([bearer]);
  });

  it('keeps the provider cache apart per credential', async () => {
    const query = '{ providers(first: 5) { totalCount } }';
    const aliceBearer = await vraBearer(stack.vra, alice);
    const bobBearer = await vraBearer(stack.vra, bob);
    await stack.gql(query, {}, { 'x-vra-authorization': aliceBearer });
    const from = providerListCalls(stack.vra).length;
    await stack.gql(query, {}, { 'x-vra-authorization': bobBearer });
    const bobCalls = providerListCalls(stack.vra).slice(from);
    expect(bobCalls.length).toBeGreaterThan(0);
    expect(authorizations(bobCalls)).toEqual([bobBearer]);
  });

  it('does not send the vRA bearer to vRO when vRO authenticates on its own (VRO_AUTH_MODE=basic)', async () => {
    const bearer = await vraBearer(stack.vra, alice);
    const from = stack.vro.requests.length;
    const answer = await stack.gql(
      '{ workflows(first: 1) { totalCount } }',
      {},
      { 'x-vra-authorization': bearer },
    );
    expect(answer.errors).toBeUndefined();
    expect(authorizations(since(stack.vro.requests, from))).toEqual([basic(stack.vro)]);
  });

  it.each([
    ['x-nsx-authorization', 'a Bearer value', 'Bearer abc-secret'],
    ['x-nsx-authorization', 'a Basic value that is not base64', 'Basic not base64 secret!'],
    ['x-vra-authorization', 'a Basic value', basic(alice)],
    ['x-vra-authorization', 'a scheme with no credentials', 'Bearer'],
    ['x-vro-authorization', 'the Digest scheme', 'Digest username="alice-secret"'],
    ['x-vro-authorization', 'a value of 9 KB', `Basic ${'a'.repeat(9000)}`],
  ])('refuses %s with %s as BAD_USER_INPUT and calls no upstream', async (header, _, value) => {
    const before = [stack.vro, stack.vra, stack.nsx].map((s) => s.requests.length);
    const answer = await stack.gql(
      '{ workflows(first: 1) { totalCount } ipSets { id } providers(first: 1) { totalCount } }',
      {},
      { [header]: value },
    );
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual(['BAD_USER_INPUT']);
    expect(answer.errors?.[0]?.message).toContain(header);
    const secret = /^\S+ (.+)$/.exec(value)?.[1];
    if (secret !== undefined) expectNoCredentials(answer, secret);
    expect([stack.vro, stack.vra, stack.nsx].map((s) => s.requests.length)).toEqual(before);
  });
});

describe('per-user credentials with VRO_AUTH_MODE=vra-token', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTwoUserStack({ VRO_AUTH_MODE: 'vra-token' });
  });
  afterAll(async () => {
    await stack.close();
  });

  it("sends the user's vRA bearer to vRO too, which runs the workflow as that user", async () => {
    const bearer = await vraBearer(stack.vra, alice);
    const from = stack.vro.requests.length;
    const answer = await stack.gql<any>(
      'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
      { w: echo },
      { 'x-vra-authorization': bearer },
    );
    expect(answer.errors).toBeUndefined();
    const id = answer.data?.runWorkflow.execution.id as string;
    expect(stack.vro.executions.find((e) => e.id === id)?.startedBy).toBe('alice');
    expect(authorizations(since(stack.vro.requests, from))).toEqual([bearer]);
  });

  it('prefers an explicit X-Vro-Authorization over the vRA bearer for vRO', async () => {
    const bearer = await vraBearer(stack.vra, alice);
    const from = stack.vro.requests.length;
    const answer = await stack.gql(
      '{ workflows(first: 1) { totalCount } }',
      {},
      { 'x-vra-authorization': bearer, 'x-vro-authorization': basic(bob) },
    );
    expect(answer.errors).toBeUndefined();
    expect(authorizations(since(stack.vro.requests, from))).toEqual([basic(bob)]);
  });

  it('uses the service account for vRO when no user credential is sent', async () => {
    const from = stack.vro.requests.length;
    expect((await stack.gql('{ workflows(first: 1) { totalCount } }')).errors).toBeUndefined();
    expect(authorizations(since(stack.vro.requests, from))).toEqual([basic(stack.vro)]);
  });
});

describe('subscription pollers and user credentials', () => {
  let stack: Stack;
  let server: Awaited<ReturnType<typeof listen>>;
  const open: SseSubscription[] = [];
  const subscription = `subscription($w: ID!, $e: ID!) {
    workflowExecution(workflowId: $w, executionId: $e) { id state }
  }`;

  beforeAll(async () => {
    stack = await startTwoUserStack();
    server = await listen(stack.gateway);
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(async () => {
    await server.close();
    await stack.close();
  });

  async function subscribe(executionId: string, headers: Record<string, string>) {
    const opened = await SseSubscription.open(
      server.url,
      subscription,
      { w: echo, e: executionId },
      headers,
    );
    open.push(opened);
    expect(opened.status).toBe(200);
    const first = await opened.next();
    expect(first?.data.data.workflowExecution.id).toBe(executionId);
    return opened;
  }

  it("gives two users of one execution a poller each, each polling with that user's credentials", async () => {
    const run = await stack.gql<any>(
      'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
      { w: echo },
    );
    const executionId = run.data?.runWorkflow.execution.id as string;
    const polls = () =>
      stack.vro.requests.filter(
        (r) => r.method === 'GET' && r.rawPath.endsWith(`/executions/${executionId}/`),
      );
    const from = polls().length;

    await subscribe(executionId, { 'x-vro-authorization': basic(alice) });
    await subscribe(executionId, { 'x-vro-authorization': basic(alice) });
    expect(stack.gateway.clients.vro.activeWatches).toBe(1);
    await subscribe(executionId, { 'x-vro-authorization': basic(bob) });
    expect(stack.gateway.clients.vro.activeWatches).toBe(2);
    await subscribe(executionId, {});
    expect(stack.gateway.clients.vro.activeWatches).toBe(3);

    // Each poller polls again: every credential keeps reading with its own header.
    await until(() => {
      const seen = polls().slice(from);
      return [basic(alice), basic(bob), basic(stack.vro)].every(
        (value) => seen.filter((r) => r.headers.authorization === value).length >= 2,
      );
    });
    expect(authorizations(polls().slice(from)).sort()).toEqual(
      [basic(alice), basic(bob), basic(stack.vro)].sort(),
    );
  });

  it('does not let a user with a wrong password join the poller of a user with the right one', async () => {
    const run = await stack.gql<any>(
      'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
      { w: echo },
    );
    const executionId = run.data?.runWorkflow.execution.id as string;
    await subscribe(executionId, { 'x-vro-authorization': basic(alice) });

    const intruder = await SseSubscription.open(
      server.url,
      subscription,
      { w: echo, e: executionId },
      { 'x-vro-authorization': basic({ ...alice, password: 'guess' }) },
    );
    open.push(intruder);
    const event = await intruder.next();
    expect(event?.data.data ?? null).toBeNull();
    expect(event?.data.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
