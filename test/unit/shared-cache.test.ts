import { describe, expect, it } from 'vitest';
import { SharedCache } from '../../src/cache/shared-cache.ts';

/** A cache on a fake clock whose loads are answered by the test. */
function setup(ttlMs = 1000, maxEntries = 10) {
  let now = 1_700_000_000_000;
  const lookups: boolean[] = [];
  const cache = new SharedCache<string>({ name: 'test', ttlMs, maxEntries, now: () => now });
  cache.observe((hit) => lookups.push(hit));
  const loads: Array<{ key: string; resolve(v: string): void; reject(e: Error): void }> = [];
  const get = (key: string) =>
    cache.get(
      key,
      () =>
        new Promise<string>((resolve, reject) => {
          loads.push({ key, resolve, reject });
        }),
    );
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    cache,
    lookups,
    loads,
    get,
    settle,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('SharedCache', () => {
  it('loads once per key and serves the value until the time is up', async () => {
    const t = setup(1000);
    const first = t.get('a');
    await t.settle();
    t.loads[0]!.resolve('A1');
    expect(await first).toBe('A1');
    t.advance(999);
    expect(await t.get('a')).toBe('A1');
    expect(t.loads).toHaveLength(1);
    t.advance(1);
    const again = t.get('a');
    await t.settle();
    expect(t.loads).toHaveLength(2);
    t.loads[1]!.resolve('A2');
    expect(await again).toBe('A2');
    expect(t.lookups).toEqual([false, true, false]);
  });

  it('shares one load between concurrent callers of a key, and loads each key apart', async () => {
    const t = setup();
    const waiting = [t.get('a'), t.get('a'), t.get('b')];
    await t.settle();
    expect(t.loads.map((l) => l.key)).toEqual(['a', 'b']);
    t.loads[0]!.resolve('A');
    t.loads[1]!.resolve('B');
    expect(await Promise.all(waiting)).toEqual(['A', 'A', 'B']);
    expect(t.cache.entries()).toBe(2);
  });

  it('keeps no failure: every waiter gets it, and the next lookup loads again', async () => {
    const t = setup();
    const waiting = [t.get('a'), t.get('a')];
    await t.settle();
    t.loads[0]!.reject(new Error('upstream down'));
    for (const w of waiting) await expect(w).rejects.toThrow('upstream down');
    expect(t.cache.entries()).toBe(0);
    const next = t.get('a');
    await t.settle();
    expect(t.loads).toHaveLength(2);
    t.loads[1]!.resolve('A');
    expect(await next).toBe('A');
  });

  it('evicts the oldest entry beyond its size', async () => {
    const t = setup(1000, 2);
    for (const key of ['a', 'b', 'c']) {
      const p = t.get(key);
      await t.settle();
      t.loads.at(-1)!.resolve(key.toUpperCase());
      await p;
    }
    expect(t.cache.entries()).toBe(2);
    expect(await t.get('c')).toBe('C');
    expect(await t.get('b')).toBe('B');
    void t.get('a');
    await t.settle();
    expect(t.loads.map((l) => l.key)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('counts only fresh entries, and forgets a key even while it loads', async () => {
    const t = setup(1000);
    const p = t.get('a');
    await t.settle();
    void t.cache.forget('a');
    t.loads[0]!.resolve('A');
    expect(await p).toBe('A');
    expect(t.cache.entries()).toBe(0);
    const q = t.get('a');
    await t.settle();
    t.loads[1]!.resolve('A');
    await q;
    expect(t.cache.entries()).toBe(1);
    t.advance(1000);
    expect(t.cache.entries()).toBe(0);
  });

  it('refuses a time of zero (zero means no cache at all, decided by its owner)', () => {
    expect(() => new SharedCache({ name: 'x', ttlMs: 0, maxEntries: 1 })).toThrow(RangeError);
  });

  it('serves an entry to getCurrent only while the caller accepts it, and replaces it otherwise', async () => {
    const t = setup(1000);
    const load = (value: string) => () => Promise.resolve(value);
    expect(await t.cache.getCurrent('w', (v) => v === 'v1', load('v1'))).toBe('v1');
    expect(await t.cache.getCurrent('w', (v) => v === 'v1', load('unused'))).toBe('v1');
    expect(await t.cache.getCurrent('w', (v) => v === 'v2', load('v2'))).toBe('v2');
    expect(await t.cache.get('w', load('unused'))).toBe('v2');
    expect(t.lookups).toEqual([false, true, false, true]);
    expect(t.cache.entries()).toBe(1);
  });
});
