/** A wait for the lock ran out of time (`KeyedLockOptions.maxWaitMs`). */
export class LockWaitTimeoutError extends Error {
  readonly waitedMs: number;
  constructor(waitedMs: number) {
    super(`Waited ${waitedMs} ms for the lock.`);
    this.name = 'LockWaitTimeoutError';
    this.waitedMs = waitedMs;
  }
}

/** A wait for the lock was abandoned because its signal aborted. */
export class LockWaitAbortedError extends Error {
  constructor() {
    super('The wait for the lock was abandoned.');
    this.name = 'LockWaitAbortedError';
  }
}

export interface KeyedLockOptions {
  /** How long a caller waits for the lock at most; unset: as long as it takes. */
  maxWaitMs?: number;
}

/**
 * One writer at a time per key, in this process: queued work runs in arrival
 * order. It only spares the manager pointless conflicts between this
 * process's own callers; correctness still rests on the manager's
 * generation number.
 *
 * A waiter gives up when its wait exceeds `maxWaitMs` or its signal aborts;
 * it then leaves its place in the queue at once (those behind it wait only
 * for the ones ahead of it) and its work never runs.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #maxWaitMs: number | undefined;

  constructor(options: KeyedLockOptions = {}) {
    this.#maxWaitMs = options.maxWaitMs;
  }

  /** Keys held or waited for (none once every caller is done). */
  get size(): number {
    return this.#tails.size;
  }

  /** `maxWaitMs`: this caller's own bound on its wait (the least of it and the lock's applies). */
  async run<T>(
    key: string,
    work: () => Promise<T>,
    signal?: AbortSignal,
    maxWaitMs?: number,
  ): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release = (): void => undefined;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Behind this caller, the next waits for the ones ahead AND this one:
    // released early (a waiter giving up), it still waits for those ahead.
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    // The key is forgotten once the last in its queue is through, not before:
    // a newcomer must still wait for a holder that a waiter gave up on.
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    try {
      await this.#wait(previous, signal, maxWaitMs);
      return await work();
    } finally {
      release();
    }
  }

  #wait(
    previous: Promise<void>,
    signal: AbortSignal | undefined,
    callerMaxWaitMs: number | undefined,
  ): Promise<void> {
    const bounds = [this.#maxWaitMs, callerMaxWaitMs].filter((b) => b !== undefined);
    const maxWaitMs = bounds.length === 0 ? undefined : Math.max(0, Math.min(...bounds));
    if (signal === undefined && maxWaitMs === undefined) return previous;
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        done();
        reject(new LockWaitAbortedError());
      };
      if (signal?.aborted === true) {
        reject(new LockWaitAbortedError());
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      if (maxWaitMs !== undefined) {
        timer = setTimeout(() => {
          done();
          reject(new LockWaitTimeoutError(maxWaitMs));
        }, maxWaitMs);
      }
      void previous.then(() => {
        done();
        resolve();
      });
    });
  }
}
