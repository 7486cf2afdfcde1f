import { describe, expect, it } from 'vitest';
import { SharedCache } from '../../src/cache/shared-cache.ts';
import { Watcher, type CallStats, type WatchEvent } from '../../src/upstreams/poller.ts';
import { MemoryRedis } from '../helpers/memory-store.ts';
import { until } from '../helpers/wait.ts';

/** Two replicas' caches of one name over one (in-memory) Redis. */
function replicas(redis: MemoryRedis, remoteWaitMs = 1000) {
  return ['a', 'b'].map((replica) => {
    const lookups: boolean[] = [];
    const cache = new SharedCache<{ n: number }>({
      name: 'providers',
      ttlMs: 60_000,
      maxEntries: 10,
      remote: redis.store(replica),
      remoteWaitMs,
    });
    cache.observe((hit) => lookups.push(hit));
    return { cache, lookups };
  }) as [
    { cache: SharedCache<{ n: number }>; lookups: boolean[] },
    { cache: SharedCache<{ n: number }>; lookups: boolean[] },
  ];
}

describe('SharedCache over a store shared by replicas', () => {
  it('serves a value one replica loaded to the others, without loading it again', async () => {
    const redis = new MemoryRedis();
    const [a, b] = replicas(redis);
    let loads = 0;
    const load = () => Promise.resolve({ n: ++loads });
    expect(await a.cache.get('user:1234', load)).toEqual({ n: 1 });
    expect(await b.cache.get('user:1234', load)).toEqual({ n: 1 });
    expect(loads).toBe(1);
    expect(a.lookups).toEqual([false]);
    expect(b.lookups).toEqual([true]);
    // No credential digest, cache name or id in a key, and every value expires.
    for (const [key, entry] of redis.values) {
      expect(key).toMatch(/^[a-z-]+:[0-9a-f]{40}$/);
      expect(entry.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    }
  });

  it('takes no value of an older version from the shared store when the caller knows a newer one', async () => {
    const redis = new MemoryRedis();
    const [a, b] = replicas(redis);
    await a.cache.get('workflow', () => Promise.resolve({ n: 1 }));
    const atVersion2 = (value: { n: number }) => value.n === 2;
    expect(
      await b.cache.getCurrent('workflow', atVersion2, () => Promise.resolve({ n: 2 })),
    ).toEqual({ n: 2 });
    // The newer value replaced the older one for every replica.
    expect(
      await a.cache.getCurrent('workflow', atVersion2, () => Promise.resolve({ n: 3 })),
    ).toEqual({ n: 2 });
  });

  it('loads a key once when replicas ask for it at the same time: the others wait for its value', async () => {
    const redis = new MemoryRedis();
    const [a, b] = replicas(redis);
    let loads = 0;
    const load = () =>
      new Promise<{ n: number }>((resolve) => setTimeout(() => resolve({ n: ++loads }), 60));
    const answers = await Promise.all([a.cache.get('k', load), b.cache.get('k', load)]);
    expect(answers).toEqual([{ n: 1 }, { n: 1 }]);
    expect(loads).toBe(1);
  });

  it('loads a key itself when the replica loading it takes longer than it waits', async () => {
    const redis = new MemoryRedis();
    const [a, b] = replicas(redis, 50);
    void a.cache.get('k', () => new Promise(() => {}));
    await until(() => redis.commands.includes('a acquire'));
    expect(await b.cache.get('k', () => Promise.resolve({ n: 2 }))).toEqual({ n: 2 });
  });

  it('works as a cache of this process while Redis is down, and never fails for it', async () => {
    const redis = new MemoryRedis();
    redis.up = false;
    const [a, b] = replicas(redis);
    let loads = 0;
    const load = () => Promise.resolve({ n: ++loads });
    expect(await a.cache.get('k', load)).toEqual({ n: 1 });
    expect(await a.cache.get('k', load)).toEqual({ n: 1 });
    expect(await b.cache.get('k', load)).toEqual({ n: 2 });
    expect(redis.values.size).toBe(0);
  });

  it('forgets a key in Redis too (a credential the upstream refused)', async () => {
    const redis = new MemoryRedis();
    const [a, b] = replicas(redis);
    let loads = 0;
    const load = () => Promise.resolve({ n: ++loads });
    await a.cache.get('k', load);
    await a.cache.forget('k');
    expect(await b.cache.get('k', load)).toEqual({ n: 2 });
  });

  it('forgets every value on every replica and in Redis when one replica clears the cache (a package import)', async () => {
    const redis = new MemoryRedis();
    const [a, b] = replicas(redis);
    let loads = 0;
    const load = () => Promise.resolve({ n: ++loads });
    await a.cache.get('k', load);
    expect(await b.cache.get('k', load)).toEqual({ n: 1 });
    await a.cache.clear();
    // b held the value itself and Redis still holds it: neither may serve it now.
    expect(await b.cache.get('k', load)).toEqual({ n: 2 });
    expect(await a.cache.get('k', load)).toEqual({ n: 2 });
    // A replica that joins later takes the value loaded since the clear, not the one before.
    const c = new SharedCache<{ n: number }>({
      name: 'providers',
      ttlMs: 60_000,
      maxEntries: 10,
      remote: redis.store('c'),
    });
    expect(await c.get('k', load)).toEqual({ n: 2 });
    expect(loads).toBe(2);
  });

  it('takes no value a replica stored for a lookup that began before the clear', async () => {
    const redis = new MemoryRedis();
    const [a, b] = replicas(redis);
    let release: (() => void) | undefined;
    const slow = a.cache.get(
      'k',
      () => new Promise<{ n: number }>((resolve) => (release = () => resolve({ n: 1 }))),
    );
    await until(() => release !== undefined);
    await b.cache.clear();
    release?.();
    expect(await slow).toEqual({ n: 1 });
    await until(() => redis.commands.filter((command) => command === 'a set').length === 1);
    expect(await b.cache.get('k', () => Promise.resolve({ n: 2 }))).toEqual({ n: 2 });
  });
});

const rules = {
  changed: (previous: { state: string } | undefined, next: { state: string }) =>
    previous?.state !== next.state,
  isFinal: (record: { state: string }) => record.state === 'done',
  event: (record: { state: string }) => record,
  requestIdPrefix: 'test-watch',
};

/** An upstream record whose state the test sets; each poll is counted by replica. */
function upstream() {
  const polls: string[] = [];
  let state = 'running';
  return {
    polls,
    set: (next: string) => {
      state = next;
    },
    fetch: (replica: string) => (_signal: AbortSignal, _id: string, stats: CallStats) => {
      polls.push(replica);
      stats.upstreamCalls += 1;
      return Promise.resolve({ state });
    },
  };
}

async function collect(events: AsyncIterable<WatchEvent<{ state: string }>>): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of events) seen.push('error' in event ? 'error' : event.state);
  return seen;
}

// Leases long enough that a busy machine's late timer does not let one lapse,
// but for the test of a replica that dies.
const fast = { minDelayMs: 5, maxDelayMs: 10, leaseMs: 1000 };

describe('pollers shared by replicas', () => {
  it('polls a record from one replica and gives every change to the subscribers of all', async () => {
    const redis = new MemoryRedis();
    const record = upstream();
    const [a, b] = ['a', 'b'].map((r) => new Watcher(rules, { ...fast, remote: redis.store(r) }));
    const seenA = collect(a!.watch('k', record.fetch('a')));
    const seenB = collect(b!.watch('k', record.fetch('b')));
    await until(() => record.polls.length >= 3);
    record.set('step-2');
    await until(() => record.polls.length >= 8);
    record.set('done');
    expect(await seenA).toEqual(['running', 'step-2', 'done']);
    expect(await seenB).toEqual(['running', 'step-2', 'done']);
    expect(new Set(record.polls).size).toBe(1);
  });

  it('lets another replica take over at once when the polling one stops, so its subscribers still get the end', async () => {
    const redis = new MemoryRedis();
    const record = upstream();
    const a = new Watcher(rules, { ...fast, remote: redis.store('a') });
    const b = new Watcher(rules, { ...fast, remote: redis.store('b') });
    void collect(a.watch('k', record.fetch('a')));
    await until(() => record.polls.length >= 1);
    const seenB = collect(b.watch('k', record.fetch('b')));
    await until(() => record.polls.length >= 3);
    expect(record.polls.every((r) => r === 'a')).toBe(true);
    a.close();
    await until(() => record.polls.includes('b'));
    record.set('done');
    expect(await seenB).toEqual(['running', 'done']);
  });

  it('takes over the polls of a replica that died once its lease lapses', async () => {
    const redis = new MemoryRedis();
    const record = upstream();
    const dyingFast = { ...fast, leaseMs: 100 };
    const a = new Watcher(rules, { ...dyingFast, remote: redis.store('a') });
    const b = new Watcher(rules, { ...dyingFast, remote: redis.store('b') });
    let alive = true;
    const dying = (signal: AbortSignal, id: string, stats: CallStats) =>
      alive ? record.fetch('a')(signal, id, stats) : new Promise<never>(() => {});
    void collect(a.watch('k', dying));
    await until(() => record.polls.length >= 1);
    const seenB = collect(b.watch('k', record.fetch('b')));
    // "a" hangs: it neither polls nor renews its lease.
    alive = false;
    redis.frozen.add('a');
    const died = Date.now();
    await until(() => record.polls.includes('b'), 2000);
    expect(Date.now() - died).toBeLessThan(10 * dyingFast.leaseMs);
    record.set('done');
    expect(await seenB).toEqual(['running', 'done']);
  });

  it('polls on every replica while Redis is down, and on one again once it is back', async () => {
    const redis = new MemoryRedis();
    redis.up = false;
    const record = upstream();
    const [a, b] = ['a', 'b'].map((r) => new Watcher(rules, { ...fast, remote: redis.store(r) }));
    const seenA = collect(a!.watch('k', record.fetch('a')));
    const seenB = collect(b!.watch('k', record.fetch('b')));
    await until(() => record.polls.includes('a') && record.polls.includes('b'));
    redis.up = true;
    await until(() => [...redis.values.keys()].some((key) => key.startsWith('watch-lease:')));
    // The replica without the lease hears of it at its next round (a third of a lease).
    await new Promise((resolve) => setTimeout(resolve, fast.leaseMs));
    const mark = record.polls.length;
    await until(() => record.polls.length >= mark + 4);
    expect(new Set(record.polls.slice(mark)).size).toBe(1);
    record.set('done');
    expect(await seenA).toEqual(['running', 'done']);
    expect(await seenB).toEqual(['running', 'done']);
  });
});
