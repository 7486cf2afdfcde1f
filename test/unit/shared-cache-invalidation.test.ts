import { describe, expect, it } from 'vitest';
import { SharedCache } from '../../src/cache/shared-cache.ts';
import { MemoryRedis } from '../helpers/memory-store.ts';
import { until } from '../helpers/wait.ts';

// Invalidations shared by the replicas of one cache over one (in-memory) Redis:
// each replica keeps values in its process too, which another replica's
// write must take from it.

type Value = { v: string };

/** Three replicas' caches of one name; keys are `<group>/<item>`; a clock the test moves. */
function replicas(redis: MemoryRedis) {
  let now = Date.now();
  const make = (replica: string) => {
    const lookups: boolean[] = [];
    const cache = new SharedCache<Value>({
      name: 'details',
      ttlMs: 60_000,
      maxEntries: 100,
      remote: redis.store(replica),
      groupOf: (key) => key.split('/')[0] ?? key,
      now: () => now,
    });
    cache.observe((hit) => lookups.push(hit));
    return { cache, lookups, id: replica };
  };
  return {
    a: make('a'),
    b: make('b'),
    c: make('c'),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** The upstream: what it answers for each key now, and what it was asked. */
function upstream() {
  const state = new Map<string, string>();
  const reads: string[] = [];
  return {
    reads,
    set: (key: string, v: string) => state.set(key, v),
    load: (key: string) => () => {
      reads.push(key);
      return Promise.resolve({ v: state.get(key) ?? 'unset' });
    },
  };
}

/** Redis commands a replica sent since `from`. */
const commandsOf = (redis: MemoryRedis, replica: string, from: number): string[] =>
  redis.commands.slice(from).filter((c) => c.startsWith(`${replica} `));

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('an invalidation shared by the replicas of a cache', () => {
  it('makes every replica forget the forgotten group at once, and keep the other groups without asking Redis', async () => {
    const redis = new MemoryRedis();
    const { a, b, c } = replicas(redis);
    const vro = upstream();
    vro.set('alice/w1', 'old');
    vro.set('bob/w1', 'bob');
    for (const r of [a, b, c]) {
      expect(await r.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'old' });
      expect(await r.cache.get('bob/w1', vro.load('bob/w1'))).toEqual({ v: 'bob' });
    }
    expect(vro.reads).toEqual(['alice/w1', 'bob/w1']);

    vro.set('alice/w1', 'new');
    await a.cache.forget('alice');
    const from = redis.commands.length;
    for (const r of [a, b, c]) {
      expect(await r.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'new' });
      expect(await r.cache.get('bob/w1', vro.load('bob/w1'))).toEqual({ v: 'bob' });
    }
    // Read once more for all replicas; bob's entry served from each process, no Redis command for it.
    expect(vro.reads).toEqual(['alice/w1', 'bob/w1', 'alice/w1']);
    expect(commandsOf(redis, 'c', from).filter((command) => command !== 'c get')).toEqual([]);
    expect(commandsOf(redis, 'c', from)).toHaveLength(3); // alice/w1's value and two generations
  });

  it('makes every replica forget everything when one clears the cache', async () => {
    const redis = new MemoryRedis();
    const { a, b, c } = replicas(redis);
    const vro = upstream();
    vro.set('alice/w1', 'old');
    for (const r of [a, b, c]) await r.cache.get('alice/w1', vro.load('alice/w1'));
    vro.set('alice/w1', 'new');
    await b.cache.clear();
    for (const r of [a, b, c]) {
      expect(await r.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'new' });
    }
    expect(vro.reads).toEqual(['alice/w1', 'alice/w1']);
  });

  it('serves what it kept while it cannot reach Redis, and never once it reaches it again after an invalidation it missed', async () => {
    const redis = new MemoryRedis();
    const { a, b } = replicas(redis);
    const vro = upstream();
    vro.set('alice/w1', 'old');
    await a.cache.get('alice/w1', vro.load('alice/w1'));
    await b.cache.get('alice/w1', vro.load('alice/w1'));

    redis.reachable('b', false);
    vro.set('alice/w1', 'new');
    await a.cache.forget('alice');
    // Cut off, b keeps to what it has (Redis trouble is not an outage).
    expect(await b.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'old' });

    redis.reachable('b', true);
    expect(await b.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'new' });
    expect(vro.reads).toEqual(['alice/w1', 'alice/w1']);
  });

  it('forgets everything it kept once it reaches Redis again after missing a clear', async () => {
    const redis = new MemoryRedis();
    const { a, b } = replicas(redis);
    const vro = upstream();
    vro.set('alice/w1', 'old');
    vro.set('bob/w1', 'old');
    await a.cache.get('alice/w1', vro.load('alice/w1'));
    await b.cache.get('alice/w1', vro.load('alice/w1'));
    await b.cache.get('bob/w1', vro.load('bob/w1'));
    redis.reachable('b', false);
    vro.set('alice/w1', 'new');
    vro.set('bob/w1', 'new');
    await a.cache.clear();
    redis.reachable('b', true);
    expect(await b.cache.get('bob/w1', vro.load('bob/w1'))).toEqual({ v: 'new' });
    expect(await b.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'new' });
  });

  it('tells the others of a clear made while Redis was down once it is back, even restarted empty', async () => {
    const redis = new MemoryRedis();
    const { a, b } = replicas(redis);
    const vro = upstream();
    vro.set('alice/w1', 'old');
    await a.cache.get('alice/w1', vro.load('alice/w1'));
    await b.cache.get('alice/w1', vro.load('alice/w1'));
    redis.up = false;
    vro.set('alice/w1', 'new');
    await a.cache.clear();
    expect(await b.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'old' });
    redis.values.clear();
    redis.up = true;
    await until(() => redis.commands.includes('a publish'));
    expect(await b.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'new' });
  });

  it('finds an invalidation whose message was lost within a second, without a Redis command per read before that', async () => {
    const redis = new MemoryRedis();
    const { a, b, advance } = replicas(redis);
    const vro = upstream();
    vro.set('alice/w1', 'old');
    await a.cache.get('alice/w1', vro.load('alice/w1'));
    await b.cache.get('alice/w1', vro.load('alice/w1'));
    await b.cache.get('alice/w1', vro.load('alice/w1')); // what b keeps is checked once
    const from = redis.commands.length;
    for (let n = 0; n < 100; n += 1) await b.cache.get('alice/w1', vro.load('alice/w1'));
    // b has just checked the mark: 100 reads in the same second ask Redis nothing.
    expect(commandsOf(redis, 'b', from)).toEqual([]);

    // An invalidation whose message never reached b (its subscription stayed up).
    const channels = new Map(redis.channels);
    redis.channels.clear();
    vro.set('alice/w1', 'new');
    await a.cache.forget('alice');
    for (const [name, listeners] of channels) redis.channels.set(name, listeners);

    advance(500);
    expect(await b.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'old' });
    advance(500);
    expect(await b.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'new' });
    expect(commandsOf(redis, 'b', from)[0]).toBe('b get');
  });

  it('tells the others of an invalidation made while it could not reach Redis as soon as it can', async () => {
    const redis = new MemoryRedis();
    const { a, b } = replicas(redis);
    const vro = upstream();
    vro.set('alice/w1', 'old');
    await a.cache.get('alice/w1', vro.load('alice/w1'));
    await b.cache.get('alice/w1', vro.load('alice/w1'));

    redis.reachable('a', false);
    vro.set('alice/w1', 'new');
    await a.cache.forget('alice');
    expect(await a.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'new' });
    expect(await b.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'old' });

    redis.reachable('a', true);
    await until(() => redis.commands.includes('a publish'));
    expect(await b.cache.get('alice/w1', vro.load('alice/w1'))).toEqual({ v: 'new' });
  });

  it('takes from Redis no value whose lookup began before its group was forgotten', async () => {
    const redis = new MemoryRedis();
    const { a, b, c } = replicas(redis);
    let release: ((value: Value) => void) | undefined;
    const slow = a.cache.get(
      'alice/w1',
      () => new Promise<Value>((resolve) => (release = resolve)),
    );
    await until(() => release !== undefined);
    await b.cache.forget('alice');
    release?.({ v: 'old' });
    expect(await slow).toEqual({ v: 'old' });
    await until(() => redis.commands.includes('a set'));
    expect(await c.cache.get('alice/w1', () => Promise.resolve({ v: 'new' }))).toEqual({
      v: 'new',
    });
    // Nor does a keep it: its load was in flight when the group was forgotten.
    expect(await a.cache.get('alice/w1', () => Promise.resolve({ v: 'new' }))).toEqual({
      v: 'new',
    });
  });

  it('keeps no invalidation mark beyond the time of the values it guards', async () => {
    const redis = new MemoryRedis();
    const { a } = replicas(redis);
    await a.cache.get('alice/w1', () => Promise.resolve({ v: 'old' }));
    await a.cache.forget('alice');
    await a.cache.clear();
    await settle();
    for (const [key, entry] of redis.values) {
      expect(key).toMatch(/^[a-z-]+:[0-9a-f]{40}$/);
      expect(entry.expiresAt).toBeLessThanOrEqual(Date.now() + 61_000);
    }
  });
});
