import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';
import { startRun } from '../helpers/vro-runs.ts';
import { until } from '../helpers/wait.ts';

// cancelWorkflowExecution and the subscribers of the run: CANCELED reaches
// them within a second of the cancel's answer, whoever follows the run and
// however far its poller had backed off (up to 5 s between polls).

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const alice = { username: 'alice', password: 'alice-secret-1' };
const bob = { username: 'bob', password: 'bob-secret-2' };
const basic = (account: { username: string; password: string }): string =>
  `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`;

const follow = `subscription($w: ID!, $e: ID!) {
  workflowExecution(workflowId: $w, executionId: $e) { id state }
}`;
const cancel = `mutation($w: ID!, $e: ID!) {
  cancelWorkflowExecution(workflowId: $w, executionId: $e) { id state }
}`;

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;
const open: SseSubscription[] = [];

beforeAll(async () => {
  // A run stays INITIALIZING until the test cancels it: the simulator's clock stands still.
  stack = await startStack({ vro: { users: [alice, bob], manualClock: true, stepMs: 1000 } });
  server = await listen(stack.gateway);
});
afterEach(() => {
  for (const subscription of open.splice(0)) subscription.close();
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

/** A subscriber of the run: the states it was sent, with when each arrived, and how its stream ended. */
async function subscribe(executionId: string, headers: Record<string, string> = {}) {
  const sse = await SseSubscription.open(server.url, follow, { w: echo, e: executionId }, headers);
  open.push(sse);
  expect(sse.status).toBe(200);
  const seen: Array<{ state: string; at: number }> = [];
  const done = (async () => {
    for (;;) {
      const event = await sse.next();
      if (event === null) return 'cut';
      if (event.event === 'complete') return 'complete';
      expect(event.data.errors).toBeUndefined();
      seen.push({ state: event.data.data.workflowExecution.state as string, at: Date.now() });
    }
  })();
  await until(() => seen.length > 0);
  return { seen, done, states: () => seen.map((s) => s.state) };
}

const pollsOf = (executionId: string): RecordedRequest[] =>
  stack.vro.requests.filter(
    (request) =>
      request.method === 'GET' && request.rawPath.endsWith(`/executions/${executionId}/`),
  );

describe('cancelWorkflowExecution and the subscribers of the run', () => {
  it('gets CANCELED to every subscriber within 1 s of the answer, under every credential, the poller having backed off', async () => {
    const executionId = await startRun(stack, echo);
    const subscribers = [
      await subscribe(executionId),
      await subscribe(executionId),
      await subscribe(executionId, { 'x-vro-authorization': basic(alice) }),
    ];
    expect(stack.gateway.clients.vro.activeWatches).toBe(2);
    // Nothing changes: each poller backs off (250, 500, 1000, 2000 ms...). After
    // their fourth poll the next is two seconds away.
    const readBack = pollsOf(executionId).length;
    await until(() => pollsOf(executionId).length >= readBack + 8);

    // bob cancels: a credential that follows nothing
    const answer = await stack.gql<any>(
      cancel,
      { w: echo, e: executionId },
      { 'x-vro-authorization': basic(bob) },
    );
    const answeredAt = Date.now();
    expect(answer.errors).toBeUndefined();
    expect(answer.data.cancelWorkflowExecution).toEqual({ id: executionId, state: 'CANCELED' });

    expect(await Promise.all(subscribers.map((s) => s.done))).toEqual(Array(3).fill('complete'));
    const delays = subscribers.map((s) => s.seen.at(-1)!.at - answeredAt);
    console.info(`CANCELED reached the 3 subscribers ${delays.join(', ')} ms after the answer`);
    for (const subscriber of subscribers) {
      expect(subscriber.states()).toEqual(['INITIALIZING', 'CANCELED']);
    }
    for (const delay of delays) expect(delay).toBeLessThan(1000);
    await until(() => stack.gateway.clients.vro.activeWatches === 0);
  }, 20_000);

  it("reads the run again with each subscriber's own credential, never shares the canceller's read", async () => {
    const executionId = await startRun(stack, echo);
    const subscriber = await subscribe(executionId, { 'x-vro-authorization': basic(alice) });
    const mark = pollsOf(executionId).length;
    const answer = await stack.gql<any>(
      cancel,
      { w: echo, e: executionId },
      { 'x-vro-authorization': basic(bob) },
    );
    expect(answer.errors).toBeUndefined();
    expect(await subscriber.done).toBe('complete');
    expect(subscriber.states()).toEqual(['INITIALIZING', 'CANCELED']);
    const polls = pollsOf(executionId).slice(mark);
    const byAlice = polls.filter((r) => r.headers.authorization === basic(alice));
    const byBob = polls.filter((r) => r.headers.authorization === basic(bob));
    // bob's read-back of the cancel answer, and alice's poller's own reads
    expect(byBob).toHaveLength(1);
    expect(byAlice.length).toBeGreaterThanOrEqual(1);
    expect(byAlice.length + byBob.length).toBe(polls.length);
  });

  it('polls nothing more for a cancel refused because the run has ended', async () => {
    const executionId = await startRun(stack, echo);
    stack.vro.advance(10_000);
    const subscriber = await subscribe(executionId);
    expect(await subscriber.done).toBe('complete');
    expect(subscriber.states()).toEqual(['COMPLETED']);
    await until(() => stack.gateway.clients.vro.activeWatches === 0);
    const answer = await stack.gql<any>(cancel, { w: echo, e: executionId });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('CONFLICT');
    expect(stack.gateway.clients.vro.activeWatches).toBe(0);
  });
});
