/** Thrown when the queue of calls waiting for a slot is full. */
export class QueueFullError extends Error {
  constructor() {
    super('Too many calls are waiting for this upstream.');
    this.name = 'QueueFullError';
  }
}

interface Waiter {
  grant: () => void;
  reject: (error: unknown) => void;
}

/**
 * At most `maxConcurrent` calls run at once; up to `maxQueue` more wait in
 * FIFO order; beyond that a call fails at once with QueueFullError. A waiting
 * call whose signal aborts leaves the queue.
 */
export class ConcurrencyLimiter {
  readonly #maxConcurrent: number;
  readonly #maxQueue: number;
  readonly #queue: Waiter[] = [];
  #running = 0;

  constructor(maxConcurrent: number, maxQueue: number) {
    this.#maxConcurrent = maxConcurrent;
    this.#maxQueue = maxQueue;
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Waits for a slot; call the returned function exactly once to give it back. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (this.#running < this.#maxConcurrent) {
      this.#running += 1;
      return this.#releaser();
    }
    if (this.#queue.length >= this.#maxQueue) throw new QueueFullError();
    signal.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = (): void => {
        const index = this.#queue.indexOf(waiter);
        if (index !== -1) this.#queue.splice(index, 1);
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
    return this.#releaser();
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      if (next === undefined) this.#running -= 1;
      else next.grant();
    };
  }
}

/** The abort reason of a signal as an Error. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The operation was aborted.');
}
