/**
 * One operation's share (runtime contract): an operation can neither make
 * unbounded upstream calls nor take so many of an upstream's slots that
 * another client's operation fails; identical reads within one operation are
 * made once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { until } from '../helpers/wait.ts';
import { startStack, upstreamCalls, type Stack } from '../helpers/stack.ts';

const heavy = (first: number): string =>
  `{ workflows(first: ${first}) { nodes { inputParameters { name } } } }`;
const workflowId = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const victimQuery = `{ workflow(id: "${workflowId}") { name } }`;

const postBatch = (target: Stack, batch: unknown[]) =>
  target.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(batch),
  });

/** Calls within one request are what these tests count: no workflow detail kept across requests. */
const noDetailCache = { WORKFLOW_DETAIL_CACHE_TTL_MS: '0' };

/** The requests of one GraphQL request, by the X-Request-Id the gateway sends upstream. */
const sentFor = (requests: readonly RecordedRequest[], requestId: string) =>
  requests.filter((r) => r.headers['x-request-id'] === requestId);

describe('the estimate of upstream calls', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: noDetailCache });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('refuses workflows(first: 1000) with their parameters before any upstream call, naming the estimate and the limit', async () => {
    const before = upstreamCalls(stack);
    const answer = await stack.gql(heavy(1000));
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual([
      'GRAPHQL_VALIDATION_FAILED',
    ]);
    expect(answer.errors?.[0]?.message).toMatch(/estimated 1001 upstream calls/);
    expect(answer.errors?.[0]?.message).toMatch(/at most 100 .*MAX_UPSTREAM_CALLS_PER_OPERATION/);
    // like every refusal before execution: 400 for a client that accepts the GraphQL response type
    const spec = await stack.fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
      },
      body: JSON.stringify({ query: heavy(1000) }),
    });
    expect(spec.status).toBe(400);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('runs workflows(first: 50) with their parameters (51 calls) under the default limit', async () => {
    const before = stack.vro.requests.length;
    const answer = await stack.gql(heavy(50));
    expect(answer.errors).toBeUndefined();
    expect((answer.data?.['workflows'] as { nodes: unknown[] }).nodes).toHaveLength(50);
    expect(stack.vro.requests.length - before).toBe(51);
  });

  it('applies the variables: a `first` passed as a variable counts like one written inline', async () => {
    const query = 'query ($n: Int) { workflows(first: $n) { nodes { inputParameters { name } } } }';
    const before = upstreamCalls(stack);
    const refused = await stack.gql(query, { n: 200 });
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(refused.errors?.[0]?.message).toMatch(/estimated 201 /);
    expect(upstreamCalls(stack)).toBe(before);
    const small = await stack.gql(query, { n: 3 });
    expect(small.errors).toBeUndefined();
    expect(upstreamCalls(stack) - before).toBe(4);
  });

  it('adds up aliases of one field', async () => {
    const before = upstreamCalls(stack);
    const answer = await stack.gql(
      `{ a: workflows(first: 60) { nodes { inputParameters { name } } } b: workflows(first: 60) { nodes { outputParameters { name } } } }`,
    );
    expect(answer.errors?.[0]?.message).toMatch(/estimated 122 upstream calls/);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('counts the providers of a whole catalog page as one call', async () => {
    const before = stack.vra.requests.length;
    const answer = await stack.gql(
      '{ catalogItems(first: 1000) { nodes { name provider { name } } } }',
    );
    expect(answer.errors).toBeUndefined();
    const reads = stack.vra.requests.slice(before).filter((r) => r.method === 'GET');
    expect(reads.map((r) => r.path).sort()).toEqual([
      '/catalog-service/api/catalogItems',
      '/catalog-service/api/providers',
    ]);
  });
});

describe('the operations of a batched request', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { ...noDetailCache, MAX_UPSTREAM_CALLS_PER_OPERATION: '30' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('share the limit: the operation that takes the sum over it is refused before it calls, the others run', async () => {
    const before = stack.vro.requests.length;
    const response = await postBatch(stack, [{ query: heavy(20) }, { query: heavy(20) }]);
    expect(response.status).toBe(200);
    const [first, second] = (await response.json()) as Array<{
      data?: unknown;
      errors?: Array<{ message: string; extensions: { code: string } }>;
    }>;
    expect(first?.errors).toBeUndefined();
    expect(second?.data ?? null).toBeNull();
    expect(second?.errors?.map((e) => e.extensions.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(second?.errors?.[0]?.message).toMatch(/estimated 21 .* 21 of the batch's other .* 42/);
    expect(stack.vro.requests.length - before).toBe(21);
  });

  it('share their identical reads', async () => {
    const before = stack.vro.requests.length;
    const response = await postBatch(stack, [{ query: heavy(5) }, { query: heavy(5) }]);
    const answers = (await response.json()) as Array<{ data?: unknown; errors?: unknown }>;
    expect(answers.map((answer) => answer.errors)).toEqual([undefined, undefined]);
    expect(answers[1]?.data).toEqual(answers[0]?.data);
    expect(stack.vro.requests.length - before).toBe(6);
  });
});

describe('identical upstream reads within one operation', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      env: { ...noDetailCache, MAX_UPSTREAM_CALLS_PER_OPERATION: '100000' },
    });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('are made once: 20 aliases of the heavy query make the same calls as one', async () => {
    let before = stack.vro.requests.length;
    const one = await stack.gql(heavy(1000));
    expect(one.errors).toBeUndefined();
    const single = stack.vro.requests.slice(before).map((r) => `${r.path}?${String(r.query)}`);
    expect(single).toHaveLength(62);

    before = stack.vro.requests.length;
    const aliases = Array.from(
      { length: 20 },
      (_, i) => `w${i}: workflows(first: 1000) { nodes { inputParameters { name } } }`,
    );
    const twenty = await stack.gql(`{ ${aliases.join(' ')} }`);
    expect(twenty.errors).toBeUndefined();
    expect(twenty.data?.['w19']).toEqual(one.data?.['workflows']);
    const aliased = stack.vro.requests.slice(before).map((r) => `${r.path}?${String(r.query)}`);
    expect(aliased.sort()).toEqual(single.sort());
  });

  it('are made again after a write to that upstream: the second update reads the set anew and sees the new revision', async () => {
    const input = (name: string) => ({ name, addresses: ['10.112.1.1'] });
    const before = stack.nsx.requests.length;
    const answer = await stack.gql(
      `mutation ($a: IpSetInput!, $b: IpSetInput!) {
        a: updateIpSet(id: "ipset-3", input: $a) { name revision }
        b: updateIpSet(id: "ipset-3", input: $b) { name revision }
      }`,
      { a: input('first-name'), b: input('second-name') },
    );
    expect(answer.errors).toBeUndefined();
    const a = answer.data?.['a'] as { revision: number };
    expect(answer.data?.['b']).toEqual({ name: 'second-name', revision: a.revision + 1 });
    // read, write (it answers the set); the second update's read, identical to the first, is made again
    expect(stack.nsx.requests.slice(before).map((r) => r.method)).toEqual([
      'GET',
      'PUT',
      'GET',
      'PUT',
    ]);
  });
});

describe("one operation's share of an upstream's slots", () => {
  it('leaves slots for a small query beside the heaviest allowed operation, every time, and serves it before the heavy one ends', async () => {
    const stack = await startStack({ env: noDetailCache });
    try {
      stack.vro.faults.inject({ fault: { kind: 'delay', ms: 40 } });
      for (let round = 0; round < 5; round++) {
        const before = stack.vro.requests.length;
        // 100 estimated calls, the default limit: one list read, then 61 workflow details
        const heavyAnswer = stack.gql(heavy(99), undefined, { 'x-request-id': `heavy-${round}` });
        await until(() => stack.vro.requests.length - before > 10);
        const victim = await stack.gql(victimQuery, undefined, {
          'x-request-id': `victim-${round}`,
        });
        expect(victim.errors).toBeUndefined();
        expect(victim.data).toEqual({ workflow: { name: expect.any(String) } });
        const heavyDone = await heavyAnswer;
        expect(heavyDone.errors).toBeUndefined();

        const received = stack.vro.requests.slice(before);
        const heavySent = sentFor(received, `heavy-${round}`);
        expect(heavySent).toHaveLength(62);
        expect(sentFor(received, `victim-${round}`).map((r) => r.path)).toEqual([
          `/vco/api/workflows/${workflowId}/`,
        ]);
        // Served at once beside the heavy operation's half of the slots, not
        // after the heavy operation's queue (FIFO would put it last).
        const at = received.findIndex((r) => r.headers['x-request-id'] === `victim-${round}`);
        expect(at).toBeLessThan(40);
        // Never more than half the 32 slots for the heavy operation at once. Each call
        // is taken to last 38 ms of its 40: a Node timer counts from the loop's cached
        // time, so the delay can end a fraction of a millisecond before 40 ms after
        // `receivedAt`, and the slot's next call then looked like a 17th at once.
        expect(mostAtOnce(heavySent, 38)).toBeLessThanOrEqual(16);
      }
    } finally {
      await stack.close();
    }
  });

  it('answers a small query while heavy operations of other clients overflow the queue: they lose calls, not it', async () => {
    const stack = await startStack({
      env: { ...noDetailCache, UPSTREAM_MAX_CONCURRENCY: '4', UPSTREAM_MAX_QUEUE: '10' },
    });
    try {
      stack.vro.faults.inject({ fault: { kind: 'delay', ms: 30 } });
      for (let round = 0; round < 3; round++) {
        const heavies = [0, 1, 2].map((i) =>
          stack.gql(heavy(20), undefined, { 'x-request-id': `heavy-${round}-${i}` }),
        );
        await until(() => stack.gateway.clients.vro.seam.health.queued >= 10);
        const victim = await stack.gql(victimQuery, undefined, {
          'x-request-id': `victim-${round}`,
        });
        expect(victim.errors).toBeUndefined();
        expect(sentFor(stack.vro.requests, `victim-${round}`)).toHaveLength(1);
        for (const answer of await Promise.all(heavies)) {
          for (const error of answer.errors ?? []) {
            expect(error.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
          }
        }
      }
    } finally {
      await stack.close();
    }
  });
});

/** The most requests whose [received, received + latency) windows overlap. */
function mostAtOnce(requests: readonly RecordedRequest[], latencyMs: number): number {
  const events = requests.flatMap((r) => [
    { at: r.receivedAt, step: 1 },
    { at: r.receivedAt + latencyMs, step: -1 },
  ]);
  events.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const event of events) {
    now += event.step;
    most = Math.max(most, now);
  }
  return most;
}
