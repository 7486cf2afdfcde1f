import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter, QueueFullError } from '../../src/http/concurrency-limiter.ts';

const never = new AbortController().signal;

/** Starts a call of `owner` and records, in `log`, when it gets its slot. */
function start(limiter: ConcurrencyLimiter, owner: object, name: string, log: string[]) {
  const slot = limiter.acquire(never, owner).then((release) => {
    log.push(name);
    return release;
  });
  return slot;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrencyLimiter', () => {
  it('gives one owner at most its share of the slots and the rest to others at once', async () => {
    const limiter = new ConcurrencyLimiter(4, 100);
    const heavy = {};
    const log: string[] = [];
    for (let i = 0; i < 10; i++) void start(limiter, heavy, `heavy-${i}`, log);
    await settle();
    expect(log).toEqual(['heavy-0', 'heavy-1']);
    expect(limiter.running).toBe(2);
    expect(limiter.queued).toBe(8);
    void start(limiter, {}, 'small', log);
    await settle();
    expect(log.at(-1)).toBe('small');
    expect(limiter.running).toBe(3);
  });

  it('serves waiting owners in turn, not in arrival order', async () => {
    const limiter = new ConcurrencyLimiter(2, 100, 2);
    const [a, b] = [{}, {}];
    const log: string[] = [];
    const first = await start(limiter, a, 'a0', log);
    const second = await start(limiter, a, 'a1', log);
    for (let i = 2; i < 6; i++) void start(limiter, a, `a${i}`, log);
    void start(limiter, b, 'b0', log);
    void start(limiter, b, 'b1', log);
    first();
    await settle();
    second();
    await settle();
    expect(log).toEqual(['a0', 'a1', 'a2', 'b0']);
  });

  it('makes room in a full queue for an owner waiting for fewer calls, failing the greediest owner’s newest call', async () => {
    const limiter = new ConcurrencyLimiter(1, 3, 1);
    const [greedy, small] = [{}, {}];
    const log: string[] = [];
    const running = await start(limiter, greedy, 'g0', log);
    const waiting = [1, 2, 3].map((i) => start(limiter, greedy, `g${i}`, log));
    await expect(limiter.acquire(never, greedy)).rejects.toBeInstanceOf(QueueFullError);
    const smallSlot = start(limiter, small, 's0', log);
    await expect(waiting[2]).rejects.toBeInstanceOf(QueueFullError);
    expect(limiter.queued).toBe(3);
    running();
    await settle();
    expect(log).toEqual(['g0', 'g1']);
    (await waiting[0])?.();
    await settle();
    expect(log).toEqual(['g0', 'g1', 's0']);
    (await smallSlot)();
    await settle();
    expect(log).toEqual(['g0', 'g1', 's0', 'g2']);
  });

  it('refuses a call when the queue is full of owners as small as its own', async () => {
    const limiter = new ConcurrencyLimiter(1, 2, 1);
    const log: string[] = [];
    await start(limiter, {}, 'a', log);
    void start(limiter, {}, 'b', log);
    void start(limiter, {}, 'c', log);
    await expect(limiter.acquire(never, {})).rejects.toBeInstanceOf(QueueFullError);
    await expect(limiter.acquire(never)).rejects.toBeInstanceOf(QueueFullError);
  });

  it('takes a waiting call whose signal aborts out of the queue', async () => {
    const limiter = new ConcurrencyLimiter(1, 5, 1);
    const owner = {};
    const release = await limiter.acquire(never, owner);
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal, owner);
    const log: string[] = [];
    const next = start(limiter, {}, 'next', log);
    expect(limiter.queued).toBe(2);
    controller.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    expect(limiter.queued).toBe(1);
    release();
    (await next)();
    expect(log).toEqual(['next']);
    expect(limiter.running).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('lets a call without an owner be an owner of its own', async () => {
    const limiter = new ConcurrencyLimiter(4, 0);
    const releases = await Promise.all([1, 2, 3, 4].map(() => limiter.acquire(never)));
    expect(limiter.running).toBe(4);
    for (const release of releases) release();
    expect(limiter.running).toBe(0);
  });
});
