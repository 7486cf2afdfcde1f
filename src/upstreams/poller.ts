import { randomUUID } from 'node:crypto';
import { Repeater } from 'graphql-yoga';
import type { RemoteStore } from '../cache/remote-store.ts';

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
  /**
   * Shares the polls with the other replicas (Redis): one replica at a time
   * polls a record, under a lease, and publishes each change to the others.
   * Undefined: this process polls for its own subscribers.
   */
  remote?: RemoteStore | undefined;
  /** How long a lease lasts unless its holder renews it (default 3000 ms); renewed every third of it. */
  leaseMs?: number;
  /**
   * After a nudge, how long the poller keeps to the first delay instead of
   * backing off (default 3000 ms), unless the record becomes final sooner.
   */
  hurryMs?: number;
}

/** What one kind of watched record means to the poller. */
export interface WatchRules<T, E> {
  /** True when `next` differs from `previous` in a way subscribers are told about. */
  changed(previous: T | undefined, next: T): boolean;
  /** True when no further change will come: the watch ends after emitting it. */
  isFinal(record: T): boolean;
  /** The event subscribers receive for a record (records travel between replicas as JSON). */
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
 *
 * With a remote store, the replicas watching one record share one poller:
 * whichever holds the record's lease polls it and publishes every change
 * (with the last record kept in the store for replicas that join later); the
 * others emit what is published. When the holder stops or dies, its lease
 * ends (at once, or after `leaseMs`) and another replica takes it over,
 * polling at once, so that no subscriber misses the final record. While the
 * store is unavailable each replica polls for its own subscribers.
 */
export class Watcher<T, E> {
  readonly #pollers = new Map<string, Poller<T, E>>();
  readonly #rules: WatchRules<T, E>;
  readonly #delays: Delays;

  constructor(rules: WatchRules<T, E>, options: WatcherOptions = {}) {
    this.#rules = rules;
    this.#delays = {
      min: options.minDelayMs ?? 250,
      max: options.maxDelayMs ?? 5000,
      leaseMs: options.leaseMs ?? 3000,
      hurryMs: options.hurryMs ?? 3000,
      remote: options.remote,
    };
  }

  /**
   * Subscribes to the record under `key`; `fetch` is used only when no poller
   * exists yet. The polls made while subscribed count in `stats`. `group`
   * names what `nudge` reaches: the pollers of one record under every
   * credential (e.g. a run, whoever follows it).
   */
  watch(
    key: string,
    fetch: WatchFetch<T>,
    stats?: CallStats,
    group?: string,
  ): AsyncIterableIterator<WatchEvent<E>> {
    const existing = this.#pollers.get(key);
    if (existing !== undefined) return existing.subscribe(stats);
    const created: Poller<T, E> = new Poller(key, group, fetch, this.#rules, this.#delays, () => {
      if (this.#pollers.get(key) === created) this.#pollers.delete(key);
    });
    this.#pollers.set(key, created);
    const subscription = created.subscribe(stats);
    created.start();
    return subscription;
  }

  /**
   * The record of `group` has just been changed through the gateway (a run
   * canceled): its pollers poll at once, and keep to the first delay for a
   * while (`hurryMs`) or until the record is final, so that their subscribers
   * see the outcome now rather than at the next backed-off poll. With a
   * remote store, the other replicas' pollers are told too (through the
   * group's channel); a replica whose poller follows another's leaves the
   * poll to the lease holder, which hears of it the same way.
   */
  nudge(group: string): void {
    for (const poller of this.#pollers.values()) {
      if (poller.group === group) poller.hurry();
    }
    const store = this.#delays.remote;
    if (store === undefined || !store.available) return;
    const message: Nudge = { from: store.replicaId };
    store.publish(nudgeChannel(store, group), JSON.stringify(message)).catch(() => {});
  }

  /** Number of records being polled (or followed, when another replica polls them). */
  get activePollers(): number {
    return this.#pollers.size;
  }

  /** Stops every poller (giving up its leases); their subscribers end. */
  close(): void {
    for (const poller of [...this.#pollers.values()]) poller.stop();
  }
}

interface Delays {
  min: number;
  max: number;
  leaseMs: number;
  hurryMs: number;
  remote: RemoteStore | undefined;
}

/** What a replica publishes on a group's channel when it nudges the group's pollers. */
interface Nudge {
  /** The replica that nudged: its own pollers were nudged directly. */
  from: string;
}

/** The channel on which the replicas tell each other of the nudges of `group`. */
function nudgeChannel(store: RemoteStore, group: string): string {
  return store.key('watch-nudge', group);
}

/** What the lease holder publishes, and keeps as the record's last state. */
interface Published<T> {
  /** Grows with every change, across holders: a replica ignores what it has seen. */
  seq: number;
  record?: T;
  /** The holder stopped: another replica may take the lease at once. */
  released?: true;
}

/** How long the last record stays in the store without a poll refreshing it. */
const lastTtlMs = 10 * 60_000;

interface Subscriber<V> {
  push(value: V): unknown;
  stop(): void;
  count(upstreamCalls: number): void;
}

/**
 * `alone`: polls for this process only (no store, or the store unavailable);
 * `holder`: polls under the lease and publishes; `follower`: emits what the holder publishes.
 */
type Role = 'alone' | 'holder' | 'follower';

class Poller<T, E> {
  /** What `Watcher.nudge` reaches this poller by, if anything. */
  readonly group: string | undefined;
  readonly #fetch: WatchFetch<T>;
  readonly #rules: WatchRules<T, E>;
  readonly #delays: Delays;
  readonly #onStop: () => void;
  readonly #subscribers = new Set<Subscriber<WatchEvent<E>>>();
  readonly #controller = new AbortController();
  readonly #requestId: string;
  readonly #shared:
    { store: RemoteStore; lease: string; last: string; channel: string } | undefined;
  #unsubscribe: (() => void) | undefined;
  #unsubscribeNudges: (() => void) | undefined;
  #role: Role = 'alone';
  #seq = 0;
  #last: T | undefined;
  /** The error that ended the watch, for a subscriber whose iterator starts after it. */
  #failure: { error: unknown } | undefined;
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #coordinator: NodeJS.Timeout | undefined;
  #coordinating = false;
  #stopped = false;
  /** A poll is in flight. */
  #polling = false;
  /** Nudged while a poll was in flight (its answer may predate the change): poll again after it. */
  #pollAgain = false;
  /** Until then (epoch ms) the poller keeps to the first delay: it was nudged. */
  #hurryUntil = 0;

  constructor(
    key: string,
    group: string | undefined,
    fetch: WatchFetch<T>,
    rules: WatchRules<T, E>,
    delays: Delays,
    onStop: () => void,
  ) {
    this.group = group;
    this.#fetch = fetch;
    this.#rules = rules;
    this.#delays = delays;
    this.#delayMs = delays.min;
    this.#onStop = onStop;
    this.#requestId = `${rules.requestIdPrefix}-${randomUUID()}`;
    const store = delays.remote;
    this.#shared =
      store === undefined
        ? undefined
        : {
            store,
            lease: store.key('watch-lease', key),
            last: store.key('watch-last', key),
            channel: store.key('watch-events', key),
          };
  }

  subscribe(stats?: CallStats): AsyncIterableIterator<WatchEvent<E>> {
    return new Repeater<WatchEvent<E>>(async (push, stop) => {
      const subscriber: Subscriber<WatchEvent<E>> = {
        push,
        stop,
        count: (calls) => {
          if (stats !== undefined) stats.upstreamCalls += calls;
        },
      };
      // A Repeater starts when first read: the watch may have moved on, or ended, meanwhile.
      if (this.#last !== undefined) void push(this.#rules.event(this.#last));
      if (this.#stopped) {
        if (this.#failure !== undefined) void push(this.#failure);
        stop();
        return;
      }
      this.#subscribers.add(subscriber);
      await stop;
      this.#subscribers.delete(subscriber);
      if (this.#subscribers.size === 0) this.stop();
    });
  }

  start(): void {
    const shared = this.#shared;
    if (shared === undefined) {
      void this.#poll();
      return;
    }
    this.#unsubscribe = shared.store.subscribe(shared.channel, (message) => this.#receive(message));
    const { group } = this;
    if (group !== undefined) {
      this.#unsubscribeNudges = shared.store.subscribe(
        nudgeChannel(shared.store, group),
        (message) => this.#nudged(message),
      );
    }
    this.#coordinator = setInterval(() => void this.#coordinate(), this.#delays.leaseMs / 3);
    if (shared.store.available) {
      // Not polling until the lease says whether this replica is to.
      this.#role = 'follower';
      void this.#coordinate();
    } else void this.#poll();
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#coordinator);
    this.#controller.abort();
    this.#unsubscribe?.();
    this.#unsubscribeNudges?.();
    const shared = this.#shared;
    if (shared !== undefined && this.#role === 'holder') {
      const released: Published<T> = { seq: this.#seq, released: true };
      shared.store.release(shared.lease).catch(() => {});
      shared.store.publish(shared.channel, JSON.stringify(released)).catch(() => {});
    }
    this.#onStop();
    for (const subscriber of this.#subscribers) subscriber.stop();
  }

  /**
   * Polls at once (or right after the poll in flight) and keeps to the first
   * delay for `hurryMs`: the record has just been changed. A follower leaves
   * it to the lease holder, which is nudged through the group's channel.
   */
  hurry(): void {
    if (this.#stopped) return;
    this.#hurryUntil = Date.now() + this.#delays.hurryMs;
    this.#delayMs = this.#delays.min;
    if (this.#role === 'follower') return;
    if (this.#polling) this.#pollAgain = true;
    else this.#schedule(0);
  }

  /** Another replica nudged this poller's group (its own nudges reached this poller directly). */
  #nudged(text: string): void {
    let message: Nudge;
    try {
      message = JSON.parse(text) as Nudge;
    } catch {
      return;
    }
    if (message.from !== this.#shared?.store.replicaId) this.hurry();
  }

  async #poll(): Promise<void> {
    this.#timer = undefined;
    this.#polling = true;
    let record: T;
    const stats: CallStats = { upstreamCalls: 0 };
    try {
      record = await this.#fetch(this.#controller.signal, this.#requestId, stats);
    } catch (error) {
      this.#polling = false;
      this.#account(stats);
      if (this.#stopped) return;
      this.#failure = { error };
      for (const subscriber of this.#subscribers) void subscriber.push(this.#failure);
      this.stop();
      return;
    }
    this.#polling = false;
    this.#account(stats);
    // A follower's record comes from the holder (this poll began before the role changed).
    if (this.#stopped || this.#role === 'follower') return;
    const changed = this.#rules.changed(this.#last, record);
    if (changed) this.#seq += 1;
    if (this.#role === 'holder') this.#publish(record, changed);
    if (this.#apply(record, changed)) return;
    const hurrying = Date.now() < this.#hurryUntil;
    this.#delayMs =
      changed || hurrying ? this.#delays.min : Math.min(this.#delayMs * 2, this.#delays.max);
    const again = this.#pollAgain;
    this.#pollAgain = false;
    this.#schedule(again ? 0 : this.#delayMs);
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#poll(), delayMs);
  }

  /** Emits a record to this process's subscribers if it changed; stops after a final one (then true). */
  #apply(record: T, changed: boolean): boolean {
    this.#last = record;
    if (changed) {
      const event = this.#rules.event(record);
      for (const subscriber of this.#subscribers) void subscriber.push(event);
    }
    if (!this.#rules.isFinal(record)) return false;
    this.stop();
    return true;
  }

  /** The holder's part: the last record for replicas that join later, each change for those following. */
  #publish(record: T, changed: boolean): void {
    const shared = this.#shared;
    if (shared === undefined) return;
    const text = JSON.stringify({ seq: this.#seq, record } satisfies Published<T>);
    shared.store.set(shared.last, text, lastTtlMs).catch(() => {});
    if (changed) shared.store.publish(shared.channel, text).catch(() => {});
  }

  /** A message of the holder (or the last record, read from the store); true when the watch has ended. */
  #receive(text: string | undefined): boolean {
    if (this.#stopped) return true;
    if (text === undefined) return false;
    let message: Published<T>;
    try {
      message = JSON.parse(text) as Published<T>;
    } catch {
      return false;
    }
    if (message.released === true) {
      if (this.#role === 'follower') void this.#coordinate();
      return false;
    }
    if (message.record === undefined || message.seq <= this.#seq) return false;
    this.#seq = message.seq;
    return this.#apply(message.record, this.#rules.changed(this.#last, message.record));
  }

  /**
   * Runs every third of a lease: the holder renews its lease, the others try
   * to take it (a holder that died or left lets it lapse); a follower also
   * reads the last record, in case a published change did not reach it.
   * Without the store, every replica polls on its own until it is back.
   */
  async #coordinate(): Promise<void> {
    const shared = this.#shared;
    if (shared === undefined || this.#coordinating || this.#stopped) return;
    this.#coordinating = true;
    const { store } = shared;
    try {
      if (!store.available) {
        this.#becomeAlone();
        return;
      }
      if (this.#role === 'holder') {
        if (await store.renew(shared.lease, this.#delays.leaseMs)) return;
        this.#role = 'follower';
        clearTimeout(this.#timer);
      } else if (await store.acquire(shared.lease, this.#delays.leaseMs)) {
        // An `alone` poller is already polling: it goes on, now publishing.
        const polling = this.#role === 'alone';
        this.#role = 'holder';
        // Caught up with the last record first, so that the holder publishes only what is new.
        if (!this.#receive(await store.get(shared.last)) && !polling) this.#schedule(0);
        return;
      } else if (this.#role === 'alone') {
        this.#role = 'follower';
        clearTimeout(this.#timer);
      }
      this.#receive(await store.get(shared.last));
    } catch {
      this.#becomeAlone();
    } finally {
      this.#coordinating = false;
    }
  }

  /** The store is unavailable: this process polls for its own subscribers (at once, if it followed). */
  #becomeAlone(): void {
    if (this.#role === 'follower' && !this.#stopped) this.#schedule(0);
    this.#role = 'alone';
  }

  /** Puts one poll's calls to the account of every subscriber it served. */
  #account(stats: CallStats): void {
    for (const subscriber of this.#subscribers) subscriber.count(stats.upstreamCalls);
  }
}
