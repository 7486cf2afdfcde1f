/** Thrown when the queue of calls waiting for a slot is full. */
export class QueueFullError extends Error {
  constructor() {
    super('Too many calls are waiting for this upstream.');
    this.name = 'QueueFullError';
  }
}

interface Waiter {
  grant: () => void;
  reject: (error: Error) => void;
}

/** One claimant of the slots (a GraphQL request): its running calls and its waiting ones. */
interface Claimant {
  running: number;
  readonly waiting: Waiter[];
}

/** A limit that may change over time (an AdaptiveLimit). */
export interface LimitSource {
  readonly current: number;
}

/**
 * At most `limit` calls run at once (a number, or a source read at every
 * grant), and at most `maxPerOwner` of one owner (a GraphQL request; default:
 * half the current limit). Up to `maxQueue` more
 * wait; a freed slot goes to the owners with waiting calls in turn
 * (round-robin), so one request's hundred calls delay another's single call
 * by one turn, not by a hundred. When the queue is full, a call of an owner
 * that waits for fewer calls than the greediest one takes the place of that
 * owner's newest waiting call (which fails with QueueFullError); otherwise it
 * fails at once. A waiting call whose signal aborts leaves the queue. Calls
 * without an owner are each their own owner.
 */
export class ConcurrencyLimiter {
  readonly #limit: LimitSource;
  readonly #maxQueue: number;
  readonly #fixedPerOwner: number | undefined;
  readonly #claimants = new Map<object, Claimant>();
  /** Owners with waiting calls, the next to be served first. */
  readonly #turns: Claimant[] = [];
  #running = 0;
  #queued = 0;

  constructor(limit: number | LimitSource, maxQueue: number, maxPerOwner?: number) {
    this.#limit = typeof limit === 'number' ? { current: limit } : limit;
    this.#maxQueue = maxQueue;
    this.#fixedPerOwner = maxPerOwner;
  }

  /** Calls that may run at once now. */
  get limit(): number {
    return this.#limit.current;
  }

  get #maxPerOwner(): number {
    return this.#fixedPerOwner ?? Math.max(1, Math.floor(this.#limit.current / 2));
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queued;
  }

  /**
   * Waits for a slot for a call of `owner`; call the returned function exactly
   * once to give it back.
   */
  async acquire(signal: AbortSignal, owner: object = {}): Promise<() => void> {
    let claimant = this.#claimants.get(owner);
    if (claimant === undefined) {
      claimant = { running: 0, waiting: [] };
      this.#claimants.set(owner, claimant);
    }
    if (this.#running < this.#limit.current && claimant.running < this.#maxPerOwner) {
      this.#running += 1;
      claimant.running += 1;
      return this.#releaser(owner, claimant);
    }
    try {
      signal.throwIfAborted();
      if (this.#queued >= this.#maxQueue) this.#displaceFor(claimant);
    } catch (error) {
      this.#forgetIfIdle(owner, claimant);
      throw error;
    }
    await this.#wait(owner, claimant, signal);
    return this.#releaser(owner, claimant);
  }

  #wait(owner: object, claimant: Claimant, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.#dequeue(claimant, waiter)) this.#forgetIfIdle(owner, claimant);
        reject(abortReason(signal));
      };
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (claimant.waiting.length === 0) this.#turns.push(claimant);
      claimant.waiting.push(waiter);
      this.#queued += 1;
    });
  }

  /** Makes room in a full queue by failing the greediest other owner's newest waiting call, or throws. */
  #displaceFor(claimant: Claimant): void {
    let greediest: Claimant | undefined;
    for (const other of this.#turns) {
      if (greediest === undefined || other.waiting.length > greediest.waiting.length) {
        greediest = other;
      }
    }
    if (
      greediest === undefined ||
      greediest === claimant ||
      greediest.waiting.length <= claimant.waiting.length + 1
    ) {
      throw new QueueFullError();
    }
    const victim = greediest.waiting.at(-1);
    if (victim === undefined || !this.#dequeue(greediest, victim)) throw new QueueFullError();
    victim.reject(new QueueFullError());
  }

  /** Takes a waiting call out of the queue; false when it was no longer there. */
  #dequeue(claimant: Claimant, waiter: Waiter): boolean {
    const index = claimant.waiting.indexOf(waiter);
    if (index === -1) return false;
    claimant.waiting.splice(index, 1);
    this.#queued -= 1;
    if (claimant.waiting.length === 0) {
      const turn = this.#turns.indexOf(claimant);
      if (turn !== -1) this.#turns.splice(turn, 1);
    }
    return true;
  }

  #releaser(owner: object, claimant: Claimant): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= 1;
      claimant.running -= 1;
      this.#forgetIfIdle(owner, claimant);
      this.#grantFreeSlots();
    };
  }

  /** Hands free slots to waiting calls, one owner after another. */
  #grantFreeSlots(): void {
    let passed = 0;
    const limit = this.#limit.current;
    const perOwner = this.#maxPerOwner;
    while (this.#running < limit && passed < this.#turns.length) {
      const claimant = this.#turns.shift();
      if (claimant === undefined) return;
      if (claimant.running >= perOwner) {
        this.#turns.push(claimant);
        passed += 1;
        continue;
      }
      passed = 0;
      const waiter = claimant.waiting.shift();
      if (waiter === undefined) continue;
      this.#queued -= 1;
      if (claimant.waiting.length > 0) this.#turns.push(claimant);
      this.#running += 1;
      claimant.running += 1;
      waiter.grant();
    }
  }

  #forgetIfIdle(owner: object, claimant: Claimant): void {
    if (claimant.running === 0 && claimant.waiting.length === 0) this.#claimants.delete(owner);
  }
}

/** The abort reason of a signal as an Error. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The operation was aborted.');
}
