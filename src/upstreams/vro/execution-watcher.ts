import { randomUUID } from 'node:crypto';
import { terminalStates, type ExecutionRecord } from './wire.ts';

/** What a watcher emits: the execution, or the error that ended the watch. */
export type ExecutionEvent = { execution: ExecutionRecord } | { error: unknown };

/** Counts upstream call attempts (a request's, for its log line and metrics). */
export interface CallStats {
  upstreamCalls: number;
}

/**
 * Reads the execution once; `signal` aborts when the last subscriber leaves;
 * `stats` counts the attempts the read made (they are put to the account of
 * every subscriber it serves).
 */
export type ExecutionFetch = (
  signal: AbortSignal,
  requestId: string,
  stats: CallStats,
) => Promise<ExecutionRecord>;

export interface WatcherOptions {
  /** First delay between polls, and the delay after a change. */
  minDelayMs?: number;
  /** The delay doubles up to this while nothing changes. */
  maxDelayMs?: number;
}

/**
 * Identity of one poller: the execution and whose credentials read it, so
 * that subscribers never share a poll made with another user's credentials.
 */
export function executionWatchKey(
  workflowId: string,
  executionId: string,
  credentialIdentity: string,
): string {
  return JSON.stringify([workflowId, executionId, credentialIdentity]);
}

/**
 * One poller per watched execution, shared by all its subscribers: it polls
 * with backoff (reset on a change of state), emits on every change of state,
 * ends after a terminal state or the first error, and stops when its last
 * subscriber leaves.
 */
export class ExecutionWatcher {
  readonly #pollers = new Map<string, Poller>();
  readonly #minDelayMs: number;
  readonly #maxDelayMs: number;

  constructor(options: WatcherOptions = {}) {
    this.#minDelayMs = options.minDelayMs ?? 250;
    this.#maxDelayMs = options.maxDelayMs ?? 5000;
  }

  /**
   * Subscribes to the execution under `key`; `fetch` is used only when no
   * poller exists yet. The polls made while subscribed count in `stats`.
   */
  watch(
    key: string,
    fetch: ExecutionFetch,
    stats?: CallStats,
  ): AsyncIterableIterator<ExecutionEvent> {
    let poller = this.#pollers.get(key);
    if (poller === undefined) {
      const created = new Poller(fetch, this.#minDelayMs, this.#maxDelayMs, () => {
        if (this.#pollers.get(key) === created) this.#pollers.delete(key);
      });
      this.#pollers.set(key, created);
      poller = created;
      const subscription = poller.subscribe(stats);
      created.start();
      return subscription;
    }
    return poller.subscribe(stats);
  }

  /** Number of executions being polled. */
  get activePollers(): number {
    return this.#pollers.size;
  }

  /** Stops every poller; their subscribers end. */
  close(): void {
    for (const poller of [...this.#pollers.values()]) poller.stop();
  }
}

class Poller {
  readonly #fetch: ExecutionFetch;
  readonly #minDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #onStop: () => void;
  readonly #subscribers = new Set<Subscriber>();
  readonly #controller = new AbortController();
  readonly #requestId = `vro-watch-${randomUUID()}`;
  #last: ExecutionRecord | undefined;
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(fetch: ExecutionFetch, minDelayMs: number, maxDelayMs: number, onStop: () => void) {
    this.#fetch = fetch;
    this.#minDelayMs = minDelayMs;
    this.#maxDelayMs = maxDelayMs;
    this.#delayMs = minDelayMs;
    this.#onStop = onStop;
  }

  subscribe(stats?: CallStats): AsyncIterableIterator<ExecutionEvent> {
    const subscriber = new Subscriber(stats, () => {
      this.#subscribers.delete(subscriber);
      if (this.#subscribers.size === 0) this.stop();
    });
    this.#subscribers.add(subscriber);
    if (this.#last !== undefined) subscriber.push({ execution: this.#last });
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
    let execution: ExecutionRecord;
    const stats: CallStats = { upstreamCalls: 0 };
    try {
      execution = await this.#fetch(this.#controller.signal, this.#requestId, stats);
    } catch (error) {
      this.#account(stats);
      if (this.#stopped) return;
      for (const subscriber of this.#subscribers) subscriber.push({ error });
      this.stop();
      return;
    }
    this.#account(stats);
    if (this.#stopped) return;
    const changed = this.#last?.state !== execution.state;
    this.#last = execution;
    if (changed) {
      for (const subscriber of this.#subscribers) subscriber.push({ execution });
      this.#delayMs = this.#minDelayMs;
    } else {
      this.#delayMs = Math.min(this.#delayMs * 2, this.#maxDelayMs);
    }
    if (terminalStates.has(execution.state)) {
      this.stop();
      return;
    }
    this.#timer = setTimeout(() => void this.#poll(), changed ? this.#minDelayMs : this.#delayMs);
  }

  /** Puts one poll's calls to the account of every subscriber it served. */
  #account(stats: CallStats): void {
    for (const subscriber of this.#subscribers) subscriber.count(stats.upstreamCalls);
  }
}

/** An async iterator fed by its poller; `return()` (the client left) unsubscribes. */
class Subscriber implements AsyncIterableIterator<ExecutionEvent> {
  readonly #queue: ExecutionEvent[] = [];
  readonly #leave: () => void;
  readonly #stats: CallStats | undefined;
  #waiting: ((result: IteratorResult<ExecutionEvent>) => void) | undefined;
  #ended = false;

  constructor(stats: CallStats | undefined, leave: () => void) {
    this.#stats = stats;
    this.#leave = leave;
  }

  count(upstreamCalls: number): void {
    if (this.#stats !== undefined) this.#stats.upstreamCalls += upstreamCalls;
  }

  push(event: ExecutionEvent): void {
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

  next(): Promise<IteratorResult<ExecutionEvent>> {
    const event = this.#queue.shift();
    if (event !== undefined) return Promise.resolve({ value: event, done: false });
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<ExecutionEvent>> {
    this.#queue.length = 0;
    this.end();
    this.#leave();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ExecutionEvent> {
    return this;
  }
}
