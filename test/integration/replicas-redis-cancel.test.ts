import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNsxSimulator, type NsxSimulator } from '../../simulators/nsx/v/index.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startVraSimulator, type VraSimulator } from '../../simulators/vra/v7/index.ts';
import { startVroSimulator, type VroSimulator } from '../../simulators/vro/index.ts';
import { findRedisServer, startRedis, type TestRedis } from '../helpers/redis.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { simulatorsEnv } from '../helpers/stack.ts';
import { until } from '../helpers/wait.ts';

// Two gateway processes over one set of simulators and one real redis-server:
// a run canceled through one replica reaches the subscribers of the other
// within a second, the replica polling the run being told over Redis.

const redisServer = findRedisServer();
if (redisServer === undefined) {
  console.warn(
    'SKIPPED test/integration/replicas-redis-cancel.test.ts: redis-server is not installed ' +
      '(apt-get install redis-server; .ci/run installs it)',
  );
}

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';

interface Replica {
  name: string;
  process: SpawnedGateway;
  url: string;
}

let redis: TestRedis;
let vro: VroSimulator;
let vra: VraSimulator;
let nsx: NsxSimulator;
let a: Replica;
let b: Replica;
const open: SseSubscription[] = [];
/** Every gateway process started, killed at the end whether or not it got ready. */
const spawned: SpawnedGateway[] = [];
/** When vRO received each request (the simulator records what, not when). */
const received = new Map<RecordedRequest, number>();

async function startReplica(name: string): Promise<Replica> {
  const process = spawnGateway({
    PORT: '0',
    LOG_LEVEL: 'info',
    ...simulatorsEnv({ vro, vra, nsx }),
    REDIS_URL: redis.url,
    SESSION_SECRET: 'replicas-share-this-session-secret-0123456789',
  });
  spawned.push(process);
  const port = await process.port();
  return { name, process, url: `http://127.0.0.1:${port}` };
}

async function gql(replica: Replica, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: any; errors?: Array<{ message: string }> };
}

async function untilRedisUp(replica: Replica): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const body = (await (await fetch(`${replica.url}/ready`)).json()) as { redis?: string };
    if (body.redis === 'up') return;
    if (Date.now() > deadline) throw new Error(`${replica.name}: redis ${String(body.redis)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startRun(replica: Replica): Promise<string> {
  const answer = await gql(
    replica,
    'mutation($w: ID!) { runWorkflow(workflowId: $w, inputs: []) { execution { id } } }',
    { w: echo },
  );
  expect(answer.errors).toBeUndefined();
  return answer.data.runWorkflow.execution.id as string;
}

/** Cancels the run through `replica`: when the answer came. */
async function cancelOn(replica: Replica, executionId: string): Promise<number> {
  const answer = await gql(
    replica,
    'mutation($w: ID!, $e: ID!) { cancelWorkflowExecution(workflowId: $w, executionId: $e) { id state } }',
    { w: echo, e: executionId },
  );
  const answeredAt = Date.now();
  expect(answer.errors).toBeUndefined();
  expect(answer.data.cancelWorkflowExecution.state).toBe('CANCELED');
  return answeredAt;
}

const follow = `subscription($w: ID!, $e: ID!) { workflowExecution(workflowId: $w, executionId: $e) { id state } }`;

/** A subscriber to one run through one replica: the states it was sent (with when), and how its stream ended. */
async function subscribe(replica: Replica, executionId: string) {
  const sse = await SseSubscription.open(replica.url, follow, { w: echo, e: executionId });
  open.push(sse);
  expect(sse.status).toBe(200);
  const seen: Array<{ state: string; at: number }> = [];
  const done = (async () => {
    for (;;) {
      const event = await sse.next().catch(() => null);
      if (event === null) return 'cut';
      if (event.event === 'complete') return 'complete';
      expect(event.data.errors).toBeUndefined();
      seen.push({ state: event.data.data.workflowExecution.state as string, at: Date.now() });
    }
  })();
  await until(() => seen.length > 0);
  return { seen, done, states: () => seen.map((s) => s.state) };
}

/** When vRO received each read of one run's execution. */
function pollsOf(executionId: string): number[] {
  return vro.requests
    .filter((r) => r.method === 'GET' && r.path.endsWith(`/executions/${executionId}/`))
    .map((r) => received.get(r) ?? Number.NaN);
}

/** Until the run's poller has backed off: its fourth unchanged poll, the next one two seconds away. */
async function untilBackedOff(executionId: string): Promise<void> {
  const from = pollsOf(executionId).length;
  await until(() => pollsOf(executionId).length >= from + 4);
}

/** The process id of the replica holding the one lease of a run being polled. */
async function leaseHolder(): Promise<number | undefined> {
  const leases = await redis.client.keys('vmw-gateway:watch-lease:*');
  expect(leases).toHaveLength(1);
  const holder = await redis.client.get(leases[0]!);
  return holder === null ? undefined : Number(holder.split(':')[1]);
}

describe.skipIf(redisServer === undefined)('a run canceled on one replica', () => {
  beforeAll(async () => {
    redis = await startRedis(redisServer ?? 'redis-server');
    [vro, vra, nsx] = await Promise.all([
      // a run stays INITIALIZING for a minute: it ends only by its cancel
      startVroSimulator({ stepMs: 60_000 }),
      startVraSimulator(),
      startNsxSimulator(),
    ]);
    const push = vro.requests.push.bind(vro.requests);
    vro.requests.push = (...requests: RecordedRequest[]) => {
      for (const request of requests) received.set(request, Date.now());
      return push(...requests);
    };
    [a, b] = await Promise.all([startReplica('A'), startReplica('B')]);
    await Promise.all([untilRedisUp(a), untilRedisUp(b)]);
  }, 60_000);

  afterAll(async () => {
    for (const sse of open) sse.close();
    for (const process of spawned) process.kill();
    await Promise.all(spawned.map((process) => process.exited));
    await Promise.all([redis.close(), vro.close(), vra.close(), nsx.close()]);
  });

  it('reaches a subscriber on replica B within 1 s, A following nothing of the run', async () => {
    const executionId = await startRun(a);
    const onB = await subscribe(b, executionId);
    await untilBackedOff(executionId);
    expect(await leaseHolder()).toBe(b.process.child.pid);
    const answeredAt = await cancelOn(a, executionId);
    expect(await onB.done).toBe('complete');
    expect(onB.states()).toEqual(['INITIALIZING', 'CANCELED']);
    const delay = onB.seen.at(-1)!.at - answeredAt;
    console.info(
      `canceled on A: CANCELED reached the subscriber on B ${delay} ms after the answer`,
    );
    expect(delay).toBeLessThan(1000);
  }, 30_000);

  it('reaches the subscribers of both replicas within 1 s, whichever of them polls the run', async () => {
    for (const [canceller, first] of [
      [a, b],
      [b, a],
      [a, a],
      [b, b],
    ] as const) {
      const executionId = await startRun(a);
      // the first replica to follow the run takes its lease and polls it; the other follows
      const subscribers = [await subscribe(first, executionId)];
      subscribers.push(await subscribe(first === a ? b : a, executionId));
      await untilBackedOff(executionId);
      expect(await leaseHolder()).toBe(first.process.child.pid);
      const answeredAt = await cancelOn(canceller, executionId);
      expect(await Promise.all(subscribers.map((s) => s.done))).toEqual(['complete', 'complete']);
      const delays = subscribers.map((s) => s.seen.at(-1)!.at - answeredAt);
      console.info(
        `canceled on ${canceller.name}, polled by ${first.name}: ` +
          `CANCELED after ${delays.join(' and ')} ms`,
      );
      for (const subscriber of subscribers) {
        expect(subscriber.states()).toEqual(['INITIALIZING', 'CANCELED']);
      }
      for (const delay of delays) expect(delay).toBeLessThan(1000);
    }
  }, 60_000);
});
