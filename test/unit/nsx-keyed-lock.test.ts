import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  KeyedLock,
  LockWaitAbortedError,
  LockWaitTimeoutError,
} from '../../src/upstreams/nsx/keyed-lock.ts';

/** A piece of work that runs until the test finishes it, recording when it starts. */
function gate(log: string[], name: string) {
  let finish = (): void => undefined;
  let fail = (_error: Error): void => undefined;
  const work = (): Promise<string> => {
    log.push(`start ${name}`);
    return new Promise<string>((resolve, reject) => {
      finish = () => {
        log.push(`end ${name}`);
        resolve(name);
      };
      fail = reject;
    });
  };
  return { work, finish: () => finish(), fail: (error: Error) => fail(error) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('KeyedLock', () => {
  it('runs the work of one key one at a time, in arrival order, and other keys alongside', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const [a, b, c] = [gate(log, 'a'), gate(log, 'b'), gate(log, 'c')];
    const other = gate(log, 'other');
    const runs = [lock.run('k', a.work), lock.run('k', b.work), lock.run('k', c.work)];
    const elsewhere = lock.run('x', other.work);
    await settle();
    expect(log).toEqual(['start a', 'start other']);
    a.finish();
    await settle();
    b.finish();
    await settle();
    c.finish();
    other.finish();
    expect(await Promise.all([...runs, elsewhere])).toEqual(['a', 'b', 'c', 'other']);
    expect(log).toEqual([
      'start a',
      'start other',
      'end a',
      'start b',
      'end b',
      'start c',
      'end c',
      'end other',
    ]);
  });

  it('passes the lock on when the work fails', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const [a, b] = [gate(log, 'a'), gate(log, 'b')];
    const first = lock.run('k', a.work);
    const second = lock.run('k', b.work);
    await settle();
    a.fail(new Error('boom'));
    await expect(first).rejects.toThrow('boom');
    await settle();
    b.finish();
    expect(await second).toBe('b');
  });

  it('gives up a wait longer than maxWaitMs without running its work, and lets those behind run after the holder', async () => {
    vi.useFakeTimers();
    const lock = new KeyedLock({ maxWaitMs: 1000 });
    const log: string[] = [];
    const [holder, late, next] = [gate(log, 'holder'), gate(log, 'late'), gate(log, 'next')];
    const held = lock.run('k', holder.work);
    await vi.advanceTimersByTimeAsync(600);
    const waiting = lock.run('k', late.work);
    const rejected = expect(waiting).rejects.toThrow(LockWaitTimeoutError);
    await vi.advanceTimersByTimeAsync(500);
    const behind = lock.run('k', next.work);
    await vi.advanceTimersByTimeAsync(600);
    await rejected;
    // The holder itself is never timed out by the lock: its calls have their own deadlines.
    expect(log).toEqual(['start holder']);
    holder.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['start holder', 'end holder', 'start next']);
    next.finish();
    expect(await held).toBe('holder');
    expect(await behind).toBe('next');
  });

  it('reports how long the wait lasted', async () => {
    vi.useFakeTimers();
    const lock = new KeyedLock({ maxWaitMs: 250 });
    const holder = gate([], 'holder');
    void lock.run('k', holder.work);
    const waiting = lock.run('k', () => Promise.resolve('never'));
    const rejected = waiting.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(250);
    expect(await rejected).toMatchObject({ name: 'LockWaitTimeoutError', waitedMs: 250 });
    holder.finish();
  });

  it('lets a waiter whose signal aborts leave the queue at once, and refuses an aborted one outright', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const holder = gate(log, 'holder');
    const held = lock.run('k', holder.work);
    const client = new AbortController();
    const waiting = lock.run('k', () => Promise.resolve('never'), client.signal);
    client.abort();
    await expect(waiting).rejects.toThrow(LockWaitAbortedError);
    await expect(lock.run('k', () => Promise.resolve('never'), client.signal)).rejects.toThrow(
      LockWaitAbortedError,
    );
    holder.finish();
    expect(await held).toBe('holder');
  });

  it('keeps a newcomer waiting for the holder after every waiter between them gave up', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const [holder, newcomer] = [gate(log, 'holder'), gate(log, 'newcomer')];
    const held = lock.run('k', holder.work);
    const client = new AbortController();
    const gaveUp = lock.run('k', () => Promise.resolve('never'), client.signal);
    client.abort();
    await expect(gaveUp).rejects.toThrow(LockWaitAbortedError);
    const late = lock.run('k', newcomer.work);
    await settle();
    expect(log).toEqual(['start holder']);
    holder.finish();
    await settle();
    expect(log).toEqual(['start holder', 'end holder', 'start newcomer']);
    newcomer.finish();
    await Promise.all([held, late]);
  });

  it('holds no key once every caller is through, however each ended', async () => {
    vi.useFakeTimers();
    const lock = new KeyedLock({ maxWaitMs: 100 });
    const holder = gate([], 'holder');
    const held = lock.run('k', holder.work);
    const timedOut = lock.run('k', () => Promise.resolve('never')).catch(() => 'timed out');
    const client = new AbortController();
    const aborted = lock
      .run('k', () => Promise.resolve('never'), client.signal)
      .catch(() => 'aborted');
    const failed = lock.run('j', () => Promise.reject(new Error('no'))).catch(() => 'failed');
    expect(lock.size).toBe(2);
    client.abort();
    await vi.advanceTimersByTimeAsync(100);
    holder.finish();
    expect(await Promise.all([held, timedOut, aborted, failed])).toEqual([
      'holder',
      'timed out',
      'aborted',
      'failed',
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(lock.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('KeyedLock, its waits', () => {
  it('keeps a newcomer behind the caller that took the lock after the first holder', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const [a, b, c] = [gate(log, 'a'), gate(log, 'b'), gate(log, 'c')];
    const first = lock.run('k', a.work);
    const second = lock.run('k', b.work);
    await settle();
    a.finish();
    await first;
    await settle();
    expect(log).toEqual(['start a', 'end a', 'start b']);
    const third = lock.run('k', c.work);
    await settle();
    expect(log).toEqual(['start a', 'end a', 'start b']);
    b.finish();
    await second;
    await settle();
    c.finish();
    await third;
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    await settle();
    expect(lock.size).toBe(0);
  });

  it('waits for the shorter of its own bound and the caller’s', async () => {
    vi.useFakeTimers();
    const lock = new KeyedLock({ maxWaitMs: 1_000 });
    const log: string[] = [];
    const holder = gate(log, 'holder');
    void lock.run('k', holder.work);
    const short = lock.run('k', () => Promise.resolve('never'), undefined, 20);
    const shortFailure = short.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(20);
    const error = await shortFailure;
    expect(error).toBeInstanceOf(LockWaitTimeoutError);
    expect((error as LockWaitTimeoutError).waitedMs).toBe(20);
    const long = lock.run('k', () => Promise.resolve('never'), undefined, 5_000);
    const longFailure = long.catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void longFailure.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(((await longFailure) as LockWaitTimeoutError).waitedMs).toBe(1_000);
    holder.finish();
  });

  it('takes a negative bound as none to wait', async () => {
    vi.useFakeTimers();
    const lock = new KeyedLock();
    const holder = gate([], 'holder');
    void lock.run('k', holder.work);
    const failure = lock.run('k', () => Promise.resolve(1), undefined, -5).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    expect(((await failure) as LockWaitTimeoutError).waitedMs).toBe(0);
    holder.finish();
  });

  it('waits as long as it takes with a signal and no bound', async () => {
    vi.useFakeTimers();
    const lock = new KeyedLock();
    const log: string[] = [];
    const holder = gate(log, 'holder');
    void lock.run('k', holder.work);
    const waiting = lock.run('k', () => Promise.resolve('ran'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(60_000);
    holder.finish();
    await expect(waiting).resolves.toBe('ran');
  });

  it('leaves no timer behind once it has the lock, has given up, or was abandoned', async () => {
    vi.useFakeTimers();
    const lock = new KeyedLock({ maxWaitMs: 10_000 });
    const holder = gate([], 'holder');
    void lock.run('k', holder.work);
    const got = lock.run('k', () => Promise.resolve('ran'));
    const controller = new AbortController();
    const abandoned = lock
      .run('k', () => Promise.resolve('never'), controller.signal)
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    // the holder's wait ended at once; the two behind it wait
    expect(vi.getTimerCount()).toBe(2);
    controller.abort();
    expect(await abandoned).toBeInstanceOf(LockWaitAbortedError);
    expect(((await abandoned) as Error).name).toBe('LockWaitAbortedError');
    expect(vi.getTimerCount()).toBe(1);
    holder.finish();
    await expect(got).resolves.toBe('ran');
    expect(vi.getTimerCount()).toBe(0);
  });
});
