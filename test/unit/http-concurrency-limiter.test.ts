import { describe, expect, it } from 'vitest';
import {
  abortReason,
  ConcurrencyLimiter,
  QueueFullError,
} from '../../src/http/concurrency-limiter.ts';

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

describe('ConcurrencyLimiter, turn by turn', () => {
  /** Releases the slot granted first in `slots`, in the order they were granted. */
  async function grantsWhileReleasing(
    slots: Map<string, Promise<() => void>>,
    log: string[],
    times: number,
  ): Promise<string[]> {
    const released = new Set<string>();
    for (let i = 0; i < times; i++) {
      const name = log.find((granted) => !released.has(granted));
      if (name === undefined) break;
      released.add(name);
      (await slots.get(name))?.();
      await settle();
    }
    return log;
  }

  it('serves three owners in turn, in the order they began to wait, a freed slot at a time', async () => {
    const limiter = new ConcurrencyLimiter(1, 100, 1);
    const [a, b, c] = [{}, {}, {}];
    const log: string[] = [];
    const slots = new Map<string, Promise<() => void>>();
    for (const [owner, name] of [
      [a, 'a0'],
      [a, 'a1'],
      [a, 'a2'],
      [b, 'b0'],
      [b, 'b1'],
      [c, 'c0'],
    ] as const) {
      slots.set(name, start(limiter, owner, name, log));
    }
    await settle();
    expect(log).toEqual(['a0']);
    expect(limiter.queued).toBe(5);
    await grantsWhileReleasing(slots, log, 6);
    expect(log).toEqual(['a0', 'a1', 'b0', 'c0', 'a2', 'b1']);
    expect(limiter.running).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('passes over an owner at its share and serves the next one, and stops when every waiting owner is at its share', async () => {
    const limiter = new ConcurrencyLimiter(3, 100, 1);
    const [a, b] = [{}, {}];
    const log: string[] = [];
    const a0 = await start(limiter, a, 'a0', log);
    const b0 = await start(limiter, b, 'b0', log);
    const a1 = start(limiter, a, 'a1', log);
    const b1 = start(limiter, b, 'b1', log);
    await settle();
    // one slot free, but each owner is at its share of one
    expect(limiter.running).toBe(2);
    expect(limiter.queued).toBe(2);
    b0();
    await settle();
    expect(log).toEqual(['a0', 'b0', 'b1']);
    a0();
    await settle();
    expect(log).toEqual(['a0', 'b0', 'b1', 'a1']);
    (await a1)();
    (await b1)();
    expect(limiter.running).toBe(0);
  });

  it('takes half the current limit, at least one, as the share of an owner by default', async () => {
    const shareOf = async (limit: number): Promise<number> => {
      const limiter = new ConcurrencyLimiter(limit, 100);
      const owner = {};
      const log: string[] = [];
      for (let i = 0; i < limit; i++) void start(limiter, owner, `${i}`, log);
      await settle();
      return log.length;
    };
    expect(await shareOf(1)).toBe(1);
    expect(await shareOf(2)).toBe(1);
    expect(await shareOf(3)).toBe(1);
    expect(await shareOf(5)).toBe(2);
    expect(await shareOf(8)).toBe(4);
  });

  it('reads a changing limit at every grant, and hands out every slot a higher one frees', async () => {
    const source = { current: 1 };
    const limiter = new ConcurrencyLimiter(source, 100, 10);
    expect(limiter.limit).toBe(1);
    const log: string[] = [];
    const first = await start(limiter, {}, 'first', log);
    const waiting = [1, 2, 3, 4].map((i) => start(limiter, {}, `w${i}`, log));
    await settle();
    expect(log).toEqual(['first']);
    source.current = 3;
    expect(limiter.limit).toBe(3);
    first();
    await settle();
    expect(log).toEqual(['first', 'w1', 'w2', 'w3']);
    expect(limiter.running).toBe(3);
    source.current = 1;
    for (const slot of waiting.slice(0, 3)) (await slot)();
    await settle();
    expect(log).toEqual(['first', 'w1', 'w2', 'w3', 'w4']);
    expect(limiter.running).toBe(1);
    (await waiting[3])?.();
    expect(limiter.running).toBe(0);
  });

  it('gives a slot back once however often its release is called', async () => {
    const limiter = new ConcurrencyLimiter(2, 10, 2);
    const release = await limiter.acquire(never);
    const other = await limiter.acquire(never);
    release();
    release();
    expect(limiter.running).toBe(1);
    other();
    expect(limiter.running).toBe(0);
  });

  it('refuses an aborted call at once, without queueing it, and keeps its owner to its share', async () => {
    const limiter = new ConcurrencyLimiter(1, 10, 1);
    const owner = {};
    const release = await limiter.acquire(never, owner);
    const controller = new AbortController();
    controller.abort(new Error('early'));
    await expect(limiter.acquire(controller.signal, owner)).rejects.toThrow('early');
    expect(limiter.queued).toBe(0);
    const aborting = new AbortController();
    const waiting = limiter.acquire(aborting.signal, owner);
    aborting.abort(new Error('left'));
    await expect(waiting).rejects.toThrow('left');
    // the owner still holds its one slot: another call of it waits
    const log: string[] = [];
    const next = start(limiter, owner, 'next', log);
    await settle();
    expect(log).toEqual([]);
    expect(limiter.queued).toBe(1);
    release();
    (await next)();
    expect(log).toEqual(['next']);
    expect(limiter.running).toBe(0);
  });

  it('keeps the turn of an owner whose other calls still wait when one of them aborts', async () => {
    const limiter = new ConcurrencyLimiter(1, 10, 1);
    const [a, b] = [{}, {}];
    const log: string[] = [];
    const first = await start(limiter, b, 'b0', log);
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal, a);
    const a1 = start(limiter, a, 'a1', log);
    const b1 = start(limiter, b, 'b1', log);
    controller.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    expect(limiter.queued).toBe(2);
    first();
    await settle();
    expect(log).toEqual(['b0', 'a1']);
    (await a1)();
    await settle();
    expect(log).toEqual(['b0', 'a1', 'b1']);
    (await b1)();
  });

  it('takes an owner whose last waiting call aborts out of the turns', async () => {
    const limiter = new ConcurrencyLimiter(1, 10, 1);
    const [a, b] = [{}, {}];
    const log: string[] = [];
    const first = await start(limiter, {}, 'x', log);
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal, a);
    const b0 = start(limiter, b, 'b0', log);
    controller.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    first();
    await settle();
    expect(log).toEqual(['x', 'b0']);
    expect(limiter.queued).toBe(0);
    (await b0)();
    // a's owner comes back later with a call of its own and is served at once
    (await limiter.acquire(never, a))();
    expect(limiter.running).toBe(0);
  });

  it('displaces only an owner waiting for at least two calls more, and then its newest call', async () => {
    const limiter = new ConcurrencyLimiter(1, 4, 1);
    const [greedy, middle, small] = [{}, {}, {}];
    const log: string[] = [];
    const busy = await start(limiter, {}, 'busy', log);
    const g = [0, 1].map((i) => start(limiter, greedy, `g${i}`, log));
    const m = [0, 1].map((i) => start(limiter, middle, `m${i}`, log));
    // full: greedy and middle wait for 2 each; small waits for none
    expect(limiter.queued).toBe(4);
    const s0 = start(limiter, small, 's0', log);
    // the first of the greediest (greedy, 2 > 0 + 1) loses its newest call
    await expect(g[1]).rejects.toBeInstanceOf(QueueFullError);
    expect(limiter.queued).toBe(4);
    // now greedy waits for 1, middle for 2, small for 1: middle's 2 is not more than 1 + 1
    await expect(limiter.acquire(never, small)).rejects.toBeInstanceOf(QueueFullError);
    await expect(limiter.acquire(never, greedy)).rejects.toBeInstanceOf(QueueFullError);
    expect(limiter.queued).toBe(4);
    busy();
    for (let i = 0; i < 4; i++) {
      await settle();
      const name = log.at(-1) ?? '';
      const slot = { g0: g[0], m0: m[0], m1: m[1], s0 }[name];
      (await slot)?.();
    }
    await settle();
    expect(log).toEqual(['busy', 'g0', 'm0', 's0', 'm1']);
    expect(limiter.running).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('finds the greediest owner wherever it is in the turns', async () => {
    const limiter = new ConcurrencyLimiter(1, 4, 1);
    const [first, greedy, small] = [{}, {}, {}];
    const log: string[] = [];
    await start(limiter, {}, 'busy', log);
    void start(limiter, first, 'f0', log);
    const g = [0, 1, 2].map((i) => start(limiter, greedy, `g${i}`, log));
    void start(limiter, small, 's0', log);
    await expect(g[2]).rejects.toBeInstanceOf(QueueFullError);
    expect(limiter.queued).toBe(4);
  });

  it('gives an owner whose waiting call aborted no second place in the turns', async () => {
    const limiter = new ConcurrencyLimiter(2, 10, 2);
    const [a, b] = [{}, {}];
    const log: string[] = [];
    const slots = new Map<string, Promise<() => void>>();
    // a keeps a call running throughout, so that it stays the same claimant
    await start(limiter, a, 'a0', log);
    slots.set('x', start(limiter, {}, 'x', log));
    slots.set('b1', start(limiter, b, 'b1', log));
    // second in the turns when it leaves them
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal, a);
    controller.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    slots.set('b2', start(limiter, b, 'b2', log));
    slots.set('a2', start(limiter, a, 'a2', log));
    slots.set('a3', start(limiter, a, 'a3', log));
    await settle();
    expect(log).toEqual(['a0', 'x']);
    await grantsWhileReleasing(slots, log, 5);
    expect(log).toEqual(['a0', 'x', 'b1', 'a2', 'b2', 'a3']);
  });

  it('gives an owner whose last waiting call was granted no second place in the turns', async () => {
    const limiter = new ConcurrencyLimiter(1, 10, 1);
    const [a, b] = [{}, {}];
    const log: string[] = [];
    const slots = new Map<string, Promise<() => void>>();
    slots.set('x', start(limiter, {}, 'x', log));
    slots.set('a1', start(limiter, a, 'a1', log));
    slots.set('b1', start(limiter, b, 'b1', log));
    slots.set('b2', start(limiter, b, 'b2', log));
    await settle();
    (await slots.get('x'))?.();
    await settle();
    expect(log).toEqual(['x', 'a1']);
    slots.set('a2', start(limiter, a, 'a2', log));
    slots.set('a3', start(limiter, a, 'a3', log));
    await settle();
    await grantsWhileReleasing(slots, log, 5);
    expect(log).toEqual(['x', 'a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('counts a call granted from the queue against its owner’s share', async () => {
    const source = { current: 1 };
    const limiter = new ConcurrencyLimiter(source, 10, 1);
    const a = {};
    const log: string[] = [];
    const x = await start(limiter, {}, 'x', log);
    void start(limiter, a, 'a1', log);
    void start(limiter, a, 'a2', log);
    x();
    await settle();
    expect(log).toEqual(['x', 'a1']);
    source.current = 3;
    (await start(limiter, {}, 'z', log))();
    await settle();
    expect(log).toEqual(['x', 'a1', 'z']);
    expect(limiter.queued).toBe(1);
  });

  it('keeps the order of the turns when every waiting owner is at its share', async () => {
    const source = { current: 3 };
    const limiter = new ConcurrencyLimiter(source, 10, 1);
    const [a, b] = [{}, {}];
    const log: string[] = [];
    const a0 = await start(limiter, a, 'a0', log);
    const b0 = await start(limiter, b, 'b0', log);
    const c0 = await start(limiter, {}, 'c0', log);
    void start(limiter, a, 'a1', log);
    void start(limiter, b, 'b1', log);
    c0();
    await settle();
    expect(log).toEqual(['a0', 'b0', 'c0']);
    source.current = 1;
    a0();
    await settle();
    expect(log).toEqual(['a0', 'b0', 'c0']);
    b0();
    await settle();
    expect(log).toEqual(['a0', 'b0', 'c0', 'a1']);
  });

  it('keeps an owner to its share after one of its calls aborted, was refused or was released', async () => {
    const limiter = new ConcurrencyLimiter(3, 10, 1);
    const a = {};
    const log: string[] = [];
    await start(limiter, a, 'a0', log);
    const early = new AbortController();
    early.abort(new Error('early'));
    await expect(limiter.acquire(early.signal, a)).rejects.toThrow('early');
    const late = new AbortController();
    const waiting = limiter.acquire(late.signal, a);
    late.abort(new Error('late'));
    await expect(waiting).rejects.toThrow('late');
    void start(limiter, a, 'a1', log);
    await settle();
    expect(log).toEqual(['a0']);
    expect(limiter.running).toBe(1);

    const two = new ConcurrencyLimiter(4, 10, 2);
    const owner = {};
    const first = await two.acquire(never, owner);
    await two.acquire(never, owner);
    first();
    await two.acquire(never, owner);
    const fourth: string[] = [];
    void start(two, owner, 'fourth', fourth);
    await settle();
    expect(fourth).toEqual([]);
    expect(two.running).toBe(2);
  });

  it('keeps an owner to its share when its last running call ends while others of it wait', async () => {
    const limiter = new ConcurrencyLimiter(3, 10, 1);
    const a = {};
    const log: string[] = [];
    const a0 = await start(limiter, a, 'a0', log);
    const a1 = start(limiter, a, 'a1', log);
    await settle();
    a0();
    await settle();
    expect(log).toEqual(['a0', 'a1']);
    void start(limiter, a, 'a2', log);
    await settle();
    expect(log).toEqual(['a0', 'a1']);
    expect(limiter.running).toBe(1);
    (await a1)();
    await settle();
    expect(log).toEqual(['a0', 'a1', 'a2']);
  });

  it('refuses with QueueFullError, named so, when nothing can be displaced', async () => {
    const limiter = new ConcurrencyLimiter(1, 0, 1);
    await limiter.acquire(never);
    const refusal = await limiter.acquire(never).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(QueueFullError);
    expect((refusal as Error).name).toBe('QueueFullError');
    expect((refusal as Error).message).toBe('Too many calls are waiting for this upstream.');
  });

  it('gives the abort reason when it is an Error, and an Error of its own otherwise', () => {
    const reason = new Error('mine');
    expect(abortReason(AbortSignal.abort(reason))).toBe(reason);
    const made = abortReason(AbortSignal.abort('text'));
    expect(made).toBeInstanceOf(Error);
    expect(made.message).toBe('The operation was aborted.');
  });
});
