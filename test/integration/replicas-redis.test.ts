import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNsxSimulator, type NsxSimulator } from '../../simulators/nsx/v/index.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startVraSimulator, type VraSimulator } from '../../simulators/vra/v7/index.ts';
import { startVroSimulator, type VroSimulator } from '../../simulators/vro/index.ts';
import { readFileSync } from 'node:fs';
import { findRedisServer, startRedis, type TestRedis } from '../helpers/redis.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { simulatorsEnv, startStack } from '../helpers/stack.ts';
import { packageUpload } from '../helpers/uploads.ts';
import { providerListCalls } from '../helpers/vra.ts';

const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));

// Three gateway processes over one set of simulators and one real redis-server:
// what the appliances see when replicas share their caches and pollers.

const redisServer = findRedisServer();
if (redisServer === undefined) {
  console.warn(
    'SKIPPED test/integration/replicas-redis.test.ts: redis-server is not installed ' +
      '(apt-get install redis-server; .ci/run installs it)',
  );
}

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
/** Each state of a simulated run lasts this long: a run takes three of them. */
const stepMs = 3000;

interface Replica {
  process: SpawnedGateway;
  url: string;
}

let redis: TestRedis;
let vro: VroSimulator;
let vra: VraSimulator;
let nsx: NsxSimulator;
const replicas: Replica[] = [];
const open: SseSubscription[] = [];
/** When vRO received each request (the simulator records what, not when). */
const received = new Map<RecordedRequest, number>();

async function startReplica(): Promise<Replica> {
  const process = spawnGateway({
    PORT: '0',
    LOG_LEVEL: 'info',
    ...simulatorsEnv({ vro, vra, nsx }),
    REDIS_URL: redis.url,
    SESSION_SECRET: 'replicas-share-this-session-secret-0123456789',
    // Every subscriber of the test comes from one address.
    MAX_SUBSCRIPTIONS_PER_CLIENT: '100',
  });
  const port = await process.port();
  return { process, url: `http://127.0.0.1:${port}` };
}

async function gql(replica: Replica, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: any; errors?: Array<{ message: string }> };
}

async function ready(replica: Replica): Promise<{ status: number; body: any }> {
  const response = await fetch(`${replica.url}/ready`);
  return { status: response.status, body: await response.json() };
}

async function redisUp(replica: Replica): Promise<number> {
  const text = await (await fetch(`${replica.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('gateway_redis_up '));
  return line === undefined ? Number.NaN : Number(line.split(' ')[1]);
}

/** Waits (polling, up to 10 s) until every replica says what it thinks of Redis. */
async function untilRedisIs(state: 'up' | 'unavailable', among = replicas): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const states = await Promise.all(
      among.map(async (r) => (await ready(r)).body.redis as string | undefined),
    );
    if (states.every((s) => s === state)) return;
    if (Date.now() > deadline) throw new Error(`redis states: ${states.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts a run: its id, and when runWorkflow had answered (what vRO got after it is polling). */
async function startRun(replica: Replica): Promise<[string, number]> {
  const answer = await gql(
    replica,
    'mutation($w: ID!) { runWorkflow(workflowId: $w, inputs: []) { execution { id } } }',
    { w: echo },
  );
  expect(answer.errors).toBeUndefined();
  return [answer.data.runWorkflow.execution.id as string, Date.now()];
}

const follow = `subscription($w: ID!, $e: ID!) { workflowExecution(workflowId: $w, executionId: $e) { id state } }`;

/** A subscriber to one run through one replica: the states it was sent, and how its stream ended. */
async function subscribe(replica: Replica, executionId: string) {
  const sse = await SseSubscription.open(replica.url, follow, { w: echo, e: executionId });
  open.push(sse);
  expect(sse.status).toBe(200);
  const states: string[] = [];
  let first: () => void = () => {};
  const firstState = new Promise<void>((resolve) => (first = resolve));
  const done = (async () => {
    for (;;) {
      const event = await sse.next().catch(() => null);
      if (event === null) return 'cut';
      if (event.event === 'complete') return 'complete';
      expect(event.data.errors).toBeUndefined();
      states.push(event.data.data.workflowExecution.state as string);
      first();
    }
  })();
  return { states, firstState, done };
}

/** When vRO received each read of one run's execution since `since` (runWorkflow's own read excluded). */
function pollsOf(executionId: string, since: number): number[] {
  return vro.requests
    .filter((r) => r.method === 'GET' && r.path.endsWith(`/executions/${executionId}/`))
    .map((r) => received.get(r) ?? Number.NaN)
    .filter((at) => at >= since);
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] ?? t));
}

describe.skipIf(redisServer === undefined)('replicas sharing Redis', () => {
  beforeAll(async () => {
    redis = await startRedis(redisServer ?? 'redis-server');
    [vro, vra, nsx] = await Promise.all([
      startVroSimulator({ stepMs }),
      startVraSimulator(),
      startNsxSimulator(),
    ]);
    const push = vro.requests.push.bind(vro.requests);
    vro.requests.push = (...requests: RecordedRequest[]) => {
      for (const request of requests) received.set(request, Date.now());
      return push(...requests);
    };
    replicas.push(...(await Promise.all([startReplica(), startReplica(), startReplica()])));
    await untilRedisIs('up');
  }, 60_000);

  afterAll(async () => {
    for (const sse of open) sse.close();
    for (const replica of replicas) replica.process.kill();
    await Promise.all(replicas.map((r) => r.process.exited));
    await Promise.all([redis.close(), vro.close(), vra.close(), nsx.close()]);
  });

  it('reads the provider list once for 30 operations spread over three replicas', async () => {
    const before = providerListCalls(vra).length;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        gql(replicas[n % 3]!, '{ providerByName(name: "iaas-service") { id name } }'),
      ),
    );
    for (const answer of answers) {
      expect(answer.errors).toBeUndefined();
      expect(answer.data.providerByName.name).toBe('iaas-service');
    }
    const reads = providerListCalls(vra).length - before;
    console.info(`provider list reads for 30 operations over 3 replicas: ${reads}`);
    expect(reads).toBe(1);
    // No credential or id in a key: each is a digest under the prefix.
    const keys = await redis.client.keys('*');
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toMatch(/^vmw-gateway:[a-z-]+:[0-9a-f]{40}$/);
  });

  it("reads each workflow's parameters once for 30 operations spread over three replicas", async () => {
    const isDetailRead = (r: RecordedRequest): boolean =>
      r.method === 'GET' && /\/workflows\/[^/]+\/?$/.test(r.path);
    const before = vro.requests.length;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        gql(replicas[n % 3]!, '{ workflows(first: 5) { nodes { id inputParameters { name } } } }'),
      ),
    );
    for (const answer of answers) {
      expect(answer.errors).toBeUndefined();
      expect(answer.data.workflows.nodes).toHaveLength(5);
    }
    const details = vro.requests.slice(before).filter(isDetailRead);
    console.info(
      `vRO workflow detail reads for 30 operations (5 workflows each) over 3 replicas: ${details.length}`,
    );
    expect(new Set(details.map((r) => r.path)).size).toBe(5);
    expect(details).toHaveLength(5);
  });

  it('reads the workflow details afresh on every replica after one of them imports a package', async () => {
    const isDetailRead = (r: RecordedRequest): boolean =>
      r.method === 'GET' && /\/workflows\/[^/]+\/?$/.test(r.path);
    const query = '{ workflows(first: 5) { nodes { id inputParameters { name } } } }';
    const everyReplica = () =>
      Promise.all(Array.from({ length: 6 }, (_, n) => gql(replicas[n % 3]!, query)));
    await everyReplica();
    const { body, contentType } = await packageUpload(samplePackage);
    const imported = await fetch(`${replicas[0]!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-graphql-csrf': '1' },
      body,
    });
    const answer: any = await imported.json();
    expect(answer.data.importPackage.imported).toBe(true);
    // A package may change workflows in place, without a new version: no replica
    // may serve what it or Redis kept from before the import. The import answers
    // once Redis has told the replicas; a few ms let its message reach them.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = vro.requests.length;
    for (const answer of await everyReplica()) expect(answer.errors).toBeUndefined();
    const details = vro.requests.slice(before).filter(isDetailRead);
    expect(new Set(details.map((r) => r.path)).size).toBe(5);
    expect(details).toHaveLength(5);
  });

  it('polls vRO once per interval for 30 subscribers of one run spread over three replicas', async () => {
    const [executionId, started] = await startRun(replicas[0]!);
    const subscribers = await Promise.all(
      Array.from({ length: 30 }, (_, n) => subscribe(replicas[n % 3]!, executionId)),
    );
    const endings = await Promise.all(subscribers.map((s) => s.done));
    expect(endings).toEqual(Array(30).fill('complete'));
    for (const subscriber of subscribers) {
      expect(subscriber.states.at(-1)).toBe('COMPLETED');
      // Each state once, in order.
      expect(subscriber.states).toEqual([...new Set(subscriber.states)]);
    }
    const polls = pollsOf(executionId, started);
    const between = gaps(polls);
    console.info(
      `vRO polls for one ${3 * stepMs} ms run, 30 subscribers over 3 replicas: ${polls.length}; ` +
        `shortest gap ${Math.min(...between)} ms`,
    );
    // One poller's schedule (250 ms after a change, doubling while none) gives
    // a dozen polls for this run; three pollers would poll about every 80 ms.
    expect(polls.length).toBeLessThanOrEqual(16);
    expect(Math.min(...between)).toBeGreaterThanOrEqual(200);
  }, 30_000);

  it('loses no terminal state when the replica polling a run is killed', async () => {
    const [executionId] = await startRun(replicas[1]!);
    const subscribers = await Promise.all(
      Array.from({ length: 30 }, (_, n) => subscribe(replicas[n % 3]!, executionId)),
    );
    await Promise.all(subscribers.map((s) => s.firstState));
    const leases = await redis.client.keys('vmw-gateway:watch-lease:*');
    expect(leases).toHaveLength(1);
    const holderId = await redis.client.get(leases[0]!);
    const holder = replicas.find((r) => holderId?.split(':')[1] === String(r.process.child.pid));
    if (holder === undefined) throw new Error(`no replica holds ${String(holderId)}`);
    holder.process.child.kill('SIGKILL');
    const killedAt = Date.now();
    await holder.process.exited;

    const survivors = subscribers.filter((_, n) => replicas[n % 3] !== holder);
    const endings = await Promise.all(survivors.map((s) => s.done));
    expect(endings).toEqual(Array(20).fill('complete'));
    for (const subscriber of survivors) expect(subscriber.states.at(-1)).toBe('COMPLETED');
    const after = pollsOf(executionId, killedAt);
    const takeoverMs = (after[0] ?? Number.NaN) - killedAt;
    console.info(
      `lease holder killed: next vRO poll by another replica after ${takeoverMs} ms; ` +
        `${after.length} polls after the kill`,
    );
    expect(takeoverMs).toBeLessThan(5000);
    expect(Math.min(...gaps(after))).toBeGreaterThanOrEqual(200);

    replicas[replicas.indexOf(holder)] = await startReplica();
    await untilRedisIs('up');
  }, 40_000);

  it('keeps every replica answering while Redis is stopped or hung, and shares again once it is back', async () => {
    const [executionId] = await startRun(replicas[2]!);
    const subscribers = await Promise.all(replicas.map((r) => subscribe(r, executionId)));
    await Promise.all(subscribers.map((s) => s.firstState));

    await redis.stop();
    await untilRedisIs('unavailable');
    for (const replica of replicas) {
      const { status, body } = await ready(replica);
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: 'ready', redis: 'unavailable' });
      expect(await redisUp(replica)).toBe(0);
      const answer = await gql(replica, '{ providerByName(name: "iaas-service") { name } }');
      expect(answer.errors).toBeUndefined();
      const page = await gql(replica, '{ workflows(first: 1) { totalCount } }');
      expect(page.errors).toBeUndefined();
    }
    // Every replica polls for its own subscribers meanwhile: the run's end reaches them all.
    expect(await Promise.all(subscribers.map((s) => s.done))).toEqual(Array(3).fill('complete'));
    for (const subscriber of subscribers) expect(subscriber.states.at(-1)).toBe('COMPLETED');

    await redis.restart();
    await untilRedisIs('up');
    for (const replica of replicas) expect(await redisUp(replica)).toBe(1);

    // A hung Redis (no answer at all) is the same as a stopped one.
    redis.pause();
    try {
      await untilRedisIs('unavailable');
      const started = Date.now();
      const answers = await Promise.all(
        replicas.map((r) => gql(r, '{ providerByName(name: "iaas-service") { name } }')),
      );
      for (const answer of answers) expect(answer.errors).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      redis.resume();
    }
    await untilRedisIs('up');

    // Sharing resumed: a new run is polled by one replica again.
    const [again, startedAgain] = await startRun(replicas[0]!);
    const followers = await Promise.all(replicas.map((r) => subscribe(r, again)));
    expect(await Promise.all(followers.map((s) => s.done))).toEqual(Array(3).fill('complete'));
    const polls = pollsOf(again, startedAgain);
    console.info(
      `after Redis came back, vRO polls for one run followed on 3 replicas: ${polls.length}`,
    );
    expect(Math.min(...gaps(polls))).toBeGreaterThanOrEqual(200);
  }, 60_000);
});

describe('one process without REDIS_URL', () => {
  it('works as before: no Redis in /ready or /metrics', async () => {
    const stack = await startStack();
    try {
      const ready = await stack.fetch('/ready');
      expect(ready.status).toBe(200);
      expect(Object.keys((await ready.json()) as object)).toEqual(['status', 'upstreams']);
      expect(await (await stack.fetch('/metrics')).text()).not.toContain('gateway_redis_up');
    } finally {
      await stack.close();
    }
  });
});
