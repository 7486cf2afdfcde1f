import { randomUUID } from 'node:crypto';

/** What a watch emits: the upstream's record as an event, or the error that ended the watch. */
export type WatchEvent<E> = E | { error: unknown };

/** Counts upstream call attempts (a request's, for its log line and metrics). */
export interface CallStats {
  upstreamCalls: number;
}

/**
 * Reads the watched record once; `signal` aborts when the last subscriber
 * leaves; `stats` counts the attempts the read made (they are put to the
 * account of every subscriber it serves).
 */
export type WatchFetch<T> = (
  signal: AbortSignal,
  requestId: string,
  stats: CallStats,
) => Promise<T>;

export interface WatcherOptions {
  /** First delay between polls, and the delay after a change. */
  minDelayMs?: number;
  /** The delay doubles up to this while nothing changes. */
  maxDelayMs?: number;
}

/** What one kind of watched record means to the poller. */
export interface WatchRules<T, E> {
  /** True when `next` differs from `previous` in a way subscribers are told about. */
  changed(previous: T | undefined, next: T): boolean;
  /** True when no further change will come: the watch ends after emitting it. */
  isFinal(record: T): boolean;
  /** The event subscribers receive for a record. */
  event(record: T): E;
  /** Prefix of the request id of the poller's calls (e.g. `vro-watch`). */
  requestIdPrefix: string;
}

/**
 * Identity of one poller: what is watched and whose credentials read it
 * (`credentialKey`), so that subscribers never share a poll made with
 * another user's credentials.
 */
export function watchKey(...parts: readonly string[]): string {
  return JSON.stringify(parts);
}

/**
 * One poller per watched record, shared by all its subscribers: it polls
 * with backoff (reset on a change), emits on every change, ends after a final
 * record or the first error, and stops when its last subscriber leaves.
 */
export class Watcher<T, E> {
  readonly #pollers = new Map<string, Poller<T, E>>();
  readonly #rules: WatchRules<T, E>;
  readonly #minDelayMs: number;
  readonly #maxDelayMs: number;

  constructor(rules: WatchRules<T, E>, options: WatcherOptions = {}) {
    this.#rules = rules;
    this.#minDelayMs = options.minDelayMs ?? 250;
    this.#maxDelayMs = options.maxDelayMs ?? 5000;
  }

  /**
   * Subscribes to the record under `key`; `fetch` is used only when no poller
   * exists yet. The polls made while subscribed count in `stats`.
   */
  watch(
    key: string,
    fetch: WatchFetch<T>,
    stats?: CallStats,
  ): AsyncIterableIterator<WatchEvent<E>> {
    const existing = this.#pollers.get(key);
    if (existing !== undefined) return existing.subscribe(stats);
    const created: Poller<T, E> = new Poller(
      fetch,
      this.#rules,
      { min: this.#minDelayMs, max: this.#maxDelayMs },
      () => {
        if (this.#pollers.get(key) === created) this.#pollers.delete(key);
      },
    );
    this.#pollers.set(key, created);
    const subscription = created.subscribe(stats);
    created.start();
    return subscription;
  }

  /** Number of records being polled. */
  get activePollers(): number {
    return this.#pollers.size;
  }

  /** Stops every poller; their subscribers end. */
  close(): void {
    for (const poller of [...this.#pollers.values()]) poller.stop();
  }
}

class Poller<T, E> {
  readonly #fetch: WatchFetch<T>;
  readonly #rules: WatchRules<T, E>;
  readonly #delays: { min: number; max: number };
  readonly #onStop: () => void;
  readonly #subscribers = new Set<Subscriber<WatchEvent<E>>>();
  readonly #controller = new AbortController();
  readonly #requestId: string;
  #last: T | undefined;
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    fetch: WatchFetch<T>,
    rules: WatchRules<T, E>,
    delays: { min: number; max: number },
    onStop: () => void,
  ) {
    this.#fetch = fetch;
    this.#rules = rules;
    this.#delays = delays;
    this.#delayMs = delays.min;
    this.#onStop = onStop;
    this.#requestId = `${rules.requestIdPrefix}-${randomUUID()}`;
  }

  subscribe(stats?: CallStats): AsyncIterableIterator<WatchEvent<E>> {
    const subscriber = new Subscriber<WatchEvent<E>>(stats, () => {
      this.#subscribers.delete(subscriber);
      if (this.#subscribers.size === 0) this.stop();
    });
    this.#subscribers.add(subscriber);
    if (this.#last !== undefined) subscriber.push(this.#rules.event(this.#last));
    return subscriber;
  }

  start(): void {
    void this.#poll();
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#controller.abort();
    this.#onStop();
    for (const subscriber of this.#subscribers) subscriber.end();
  }

  async #poll(): Promise<void> {
    let record: T;
    const stats: CallStats = { upstreamCalls: 0 };
    try {
      record = await this.#fetch(this.#controller.signal, this.#requestId, stats);
    } catch (error) {
      this.#account(stats);
      if (this.#stopped) return;
      for (const subscriber of this.#subscribers) subscriber.push({ error });
      this.stop();
      return;
    }
    this.#account(stats);
    if (this.#stopped) return;
    const changed = this.#rules.changed(this.#last, record);
    this.#last = record;
    if (changed) {
      const event = this.#rules.event(record);
      for (const subscriber of this.#subscribers) subscriber.push(event);
      this.#delayMs = this.#delays.min;
    } else {
      this.#delayMs = Math.min(this.#delayMs * 2, this.#delays.max);
    }
    if (this.#rules.isFinal(record)) {
      this.stop();
      return;
    }
    this.#timer = setTimeout(() => void this.#poll(), changed ? this.#delays.min : this.#delayMs);
  }

  /** Puts one poll's calls to the account of every subscriber it served. */
  #account(stats: CallStats): void {
    for (const subscriber of this.#subscribers) subscriber.count(stats.upstreamCalls);
  }
}

/** An async iterator fed by its poller; `return()` (the client left) unsubscribes. */
class Subscriber<V> implements AsyncIterableIterator<V> {
  readonly #queue: V[] = [];
  readonly #leave: () => void;
  readonly #stats: CallStats | undefined;
  #waiting: ((result: IteratorResult<V>) => void) | undefined;
  #ended = false;

  constructor(stats: CallStats | undefined, leave: () => void) {
    this.#stats = stats;
    this.#leave = leave;
  }

  count(upstreamCalls: number): void {
    if (this.#stats !== undefined) this.#stats.upstreamCalls += upstreamCalls;
  }

  push(event: V): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting === undefined) {
      this.#queue.push(event);
      return;
    }
    this.#waiting = undefined;
    waiting({ value: event, done: false });
  }

  /** No more events; the queued ones are still delivered. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<V>> {
    if (this.#queue.length > 0) {
      return Promise.resolve({ value: this.#queue.shift() as V, done: false });
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<V>> {
    this.#queue.length = 0;
    this.end();
    this.#leave();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<V> {
    return this;
  }
}
