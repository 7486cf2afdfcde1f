import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { CacheStats } from '../observability/metrics.ts';
import type { RemoteStore } from './remote-store.ts';

export interface SharedCacheOptions {
  /** Name in metrics (`gateway_cache_*{cache}`). */
  name: string;
  /** How long a loaded value serves, from the moment its load started; must be > 0. */
  ttlMs: number;
  /** Entries kept at most; beyond it the oldest is evicted. */
  maxEntries: number;
  /** Epoch ms; a fake clock in tests. */
  now?: () => number;
  /**
   * Shares the values with the other replicas (Redis, as JSON): a value
   * loaded by one serves all of them, and one replica at a time loads a key.
   * Undefined: this process only.
   */
  remote?: RemoteStore | undefined;
  /** How long a replica waits for another's load of a key before it loads itself (default 5000 ms). */
  remoteWaitMs?: number;
  /**
   * The group of a key: what `forget(group)` forgets (e.g. every key of one
   * credential). Default: each key is its own group.
   */
  groupOf?: (key: string) => string;
  /**
   * With a `remote` store: how long what this process keeps is trusted
   * without asking the store whether another replica has invalidated some of
   * it since (default 1000 ms). Invalidations also arrive at once by pub/sub;
   * this bounds a message lost on the way.
   */
  verifyEveryMs?: number;
}

/** How a value travels through the shared store. */
interface Envelope<V> {
  value: V;
  expiresAt: number;
  /** The cache's generation when the value's lookup began (absent: never cleared). */
  generation?: string;
  /** The generation of the key's group when the lookup began (absent: never forgotten). */
  groupGeneration?: string;
}

/** The generations a lookup in the shared store found. */
interface Generations {
  cache: string | undefined;
  group: string | undefined;
}

/** How often a replica waiting for another's load looks for its value. */
const remotePollMs = 25;

/** How often a replica that could not tell the others of an invalidation looks whether it now can. */
const owedRetryMs = 100;

/** Groups owed to the other replicas at most; beyond, the whole cache is forgotten once the store is back. */
const maxOwedGroups = 1000;

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
  /** With a remote store: the store key of the entry's group, which an invalidation message names. */
  readonly groupKey?: string;
}

/**
 * Values shared across requests per key for a fixed time: one load in flight
 * per key however many callers wait for it, failures never kept, and at most
 * `maxEntries` keys (the oldest evicted first).
 *
 * With a `remote` store, a value not held here is looked up there before it
 * is loaded, and the replica that loads a key holds a short lock on it while
 * the others wait for its value (up to `remoteWaitMs`, then they load it
 * themselves): a key is loaded once per time across the replicas. Redis
 * trouble is never an error: the cache then works as one of this process.
 *
 * Invalidations (`clear()`, `forget(group)`) reach every replica: the store
 * holds a generation per cache and per group that every stored value is
 * checked against, and a mark renewed by each invalidation; each replica is
 * told at once by pub/sub, and checks the mark before it trusts what it keeps
 * after a reconnection and at least every `verifyEveryMs`, so that a replica
 * that missed a message (Redis unreachable at the time) forgets what it kept
 * before serving it again.
 */
export class SharedCache<V> implements CacheStats {
  readonly name: string;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry<V>>();
  readonly #pending = new Map<string, Promise<V>>();
  readonly #remote: RemoteStore | undefined;
  readonly #remoteWaitMs: number;
  readonly #groupOf: (key: string) => string;
  readonly #verifyEveryMs: number;
  #onLookup: ((hit: boolean) => void) | undefined;
  /** The store's invalidation mark as this process last learnt it. */
  #seenMark: string | undefined;
  /** When the mark was last read from the store, and the store's epoch then (undefined: not since it was unreachable). */
  #verifiedAt = Number.NEGATIVE_INFINITY;
  #verifiedEpoch: number | undefined;
  #verifying: Promise<void> | undefined;
  /** Invalidations made while the store was unreachable: announced once it is back. */
  #owed: { all: boolean; groups: Set<string> } | undefined;
  #owedTimer: NodeJS.Timeout | undefined;

  constructor(options: SharedCacheOptions) {
    if (!(options.ttlMs > 0)) throw new RangeError('ttlMs must be positive');
    if (!(options.maxEntries >= 1)) throw new RangeError('maxEntries must be at least 1');
    this.name = options.name;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
    this.#now = options.now ?? (() => Date.now());
    this.#remote = options.remote;
    this.#remoteWaitMs = options.remoteWaitMs ?? 5000;
    this.#groupOf = options.groupOf ?? ((key) => key);
    this.#verifyEveryMs = options.verifyEveryMs ?? 1000;
    const remote = options.remote;
    remote?.subscribe(this.#invalidatedChannel(remote), (message) =>
      this.#onInvalidated(remote, message),
    );
  }

  /**
   * Told of every lookup: hit (a fresh value, a load already in flight, or a
   * value another replica loaded) or miss (this process loads it).
   */
  observe(listener: (hit: boolean) => void): void {
    this.#onLookup = listener;
  }

  /** The fresh value of `key`, the load in flight for it, or a new load. */
  get(key: string, load: () => Promise<V>): Promise<V> {
    return this.#get(key, load, undefined);
  }

  /**
   * Like get, but a fresh entry (here or in the shared store) serves only
   * when `isCurrent(value)` holds (a version the caller knows to be the
   * latest); otherwise it is replaced by a new load. A load already in
   * flight serves whatever it answers.
   */
  getCurrent(key: string, isCurrent: (value: V) => boolean, load: () => Promise<V>): Promise<V> {
    return this.#get(key, load, isCurrent);
  }

  #get(
    key: string,
    load: () => Promise<V>,
    isCurrent: ((value: V) => boolean) | undefined,
  ): Promise<V> {
    // One clock read per lookup (it costs as much as the rest of a hit on some machines).
    const now = this.#now();
    const remote = this.#remote;
    if (remote !== undefined && this.#mustVerify(remote, now)) {
      return this.#verify(remote).then(() => this.#lookUp(key, load, isCurrent, this.#now()));
    }
    return this.#lookUp(key, load, isCurrent, now);
  }

  #lookUp(
    key: string,
    load: () => Promise<V>,
    isCurrent: ((value: V) => boolean) | undefined,
    now: number,
  ): Promise<V> {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      if (now < entry.expiresAt && (isCurrent === undefined || isCurrent(entry.value))) {
        this.#onLookup?.(true);
        return Promise.resolve(entry.value);
      }
      this.#entries.delete(key);
    }
    const pending = this.#pending.get(key);
    if (pending !== undefined) {
      this.#onLookup?.(true);
      return pending;
    }
    const remote = this.#remote;
    if (remote === undefined) this.#onLookup?.(false);
    const loading: Promise<V> = (
      remote === undefined
        ? Promise.resolve().then(async () => ({
            value: await load(),
            expiresAt: now + this.#ttlMs,
          }))
        : this.#loadShared(remote, key, load, isCurrent)
    ).then(
      (entry) => {
        if (this.#pending.get(key) === loading) {
          this.#pending.delete(key);
          this.#store(key, entry);
        }
        return entry.value;
      },
      (error: unknown) => {
        if (this.#pending.get(key) === loading) this.#pending.delete(key);
        throw error;
      },
    );
    this.#pending.set(key, loading);
    return loading;
  }

  /**
   * Forgets every key of `group` (see `groupOf`), on every replica: this
   * process's at once (a load in flight still answers its waiters but is not
   * kept), the shared store's by a new generation of the group, and the
   * other replicas' when the store's message reaches them (or, if they miss
   * it, before they next trust what they keep). Settles once the store has
   * it (never fails: while Redis is unreachable the invalidation is kept
   * and sent once it is back).
   */
  async forget(group: string): Promise<void> {
    for (const key of [...this.#entries.keys(), ...this.#pending.keys()]) {
      if (this.#groupOf(key) === group) {
        this.#entries.delete(key);
        this.#pending.delete(key);
      }
    }
    await this.#invalidate(group);
  }

  /**
   * Forgets every entry, on every replica: this process's at once, the
   * shared store's by a new generation of the cache, so that no value looked
   * up before now is taken from it again, and the other replicas' as for
   * `forget`. Settles once the store has the new generation and the message
   * is sent (never fails, as `forget`).
   */
  async clear(): Promise<void> {
    this.#forgetLocal();
    await this.#invalidate(undefined);
  }

  #forgetLocal(): void {
    this.#entries.clear();
    this.#pending.clear();
  }

  /** Fresh entries held. */
  entries(): number {
    const now = this.#now();
    for (const [key, entry] of this.#entries) {
      if (now >= entry.expiresAt) this.#entries.delete(key);
    }
    return this.#entries.size;
  }

  /**
   * Whether what this process keeps must be checked against the store's mark
   * before it serves: after the store was unreachable or reconnected (a
   * message may have been lost), and every `verifyEveryMs`. Never while the
   * store is unreachable (this process then keeps to what it has).
   */
  #mustVerify(remote: RemoteStore, now: number): boolean {
    if (
      this.#verifiedEpoch === remote.epoch &&
      now - this.#verifiedAt < this.#verifyEveryMs &&
      this.#owed === undefined
    ) {
      return false;
    }
    if (!remote.available) {
      this.#verifiedEpoch = undefined;
      return false;
    }
    return this.#owed !== undefined || this.#entries.size > 0 || this.#pending.size > 0;
  }

  /** Reads the store's mark (one read shared by every lookup waiting for it); a changed mark forgets all kept here. */
  #verify(remote: RemoteStore): Promise<void> {
    this.#verifying ??= (async () => {
      const epoch = remote.epoch;
      const at = this.#now();
      try {
        await this.#payOwed(remote);
        const mark = await remote.get(this.#markKey(remote));
        if (mark !== this.#seenMark) {
          this.#forgetLocal();
          this.#seenMark = mark;
        }
        this.#verifiedAt = at;
        this.#verifiedEpoch = epoch;
      } catch {
        // Redis trouble: this process keeps to what it has (see the class).
      }
    })().finally(() => {
      this.#verifying = undefined;
    });
    return this.#verifying;
  }

  /**
   * Another replica's (or this one's) invalidation: `<mark>` for the whole
   * cache, `<mark> <group key>` for one group. A group's message is applied
   * to that group only when nothing can have been missed since the mark was
   * last read; otherwise everything kept here is forgotten.
   */
  #onInvalidated(remote: RemoteStore, message: string): void {
    const [mark, groupKey] = message.split(' ');
    if (groupKey !== undefined && this.#verifiedEpoch === remote.epoch) {
      for (const [key, entry] of this.#entries) {
        if (entry.groupKey === groupKey) this.#entries.delete(key);
      }
      for (const key of this.#pending.keys()) {
        if (this.#groupKey(remote, this.#groupOf(key)) === groupKey) this.#pending.delete(key);
      }
    } else {
      this.#forgetLocal();
    }
    this.#seenMark = mark;
  }

  /** Tells the other replicas through the store, or keeps the invalidation for when the store is back. */
  async #invalidate(group: string | undefined): Promise<void> {
    const remote = this.#remote;
    if (remote === undefined) return;
    if (remote.available && this.#owed === undefined) {
      try {
        await this.#announce(remote, group);
        return;
      } catch {
        // Redis trouble: owed until it is back.
      }
    }
    this.#owe(remote, group);
    if (remote.available) await this.#payOwed(remote);
  }

  /**
   * Renews the generation of the cache (`group` undefined) or of the group,
   * then the mark, then publishes it: a replica that reads the mark after it
   * changed or receives the message reloads from a store that no longer
   * serves anything from before.
   */
  async #announce(remote: RemoteStore, group: string | undefined): Promise<void> {
    const mark = randomUUID();
    const groupKey = group === undefined ? undefined : this.#groupKey(remote, group);
    await Promise.all([
      remote.set(groupKey ?? this.#generationKey(remote), mark, this.#ttlMs),
      // Outlives every entry kept from before it (a replica reading it after that has nothing stale).
      remote.set(this.#markKey(remote), mark, this.#ttlMs + this.#verifyEveryMs),
    ]);
    await remote.publish(
      this.#invalidatedChannel(remote),
      groupKey === undefined ? mark : `${mark} ${groupKey}`,
    );
  }

  #owe(remote: RemoteStore, group: string | undefined): void {
    const owed = (this.#owed ??= { all: false, groups: new Set() });
    if (group === undefined || owed.groups.size >= maxOwedGroups) owed.all = true;
    else owed.groups.add(group);
    if (this.#owedTimer === undefined) {
      this.#owedTimer = setInterval(() => {
        if (remote.available) void this.#payOwed(remote);
      }, owedRetryMs);
      this.#owedTimer.unref();
    }
  }

  /** Announces what was invalidated while the store was unreachable (kept owed if it fails again). */
  async #payOwed(remote: RemoteStore): Promise<void> {
    const owed = this.#owed;
    if (owed === undefined) return;
    this.#owed = undefined;
    clearInterval(this.#owedTimer);
    this.#owedTimer = undefined;
    try {
      if (owed.all) await this.#announce(remote, undefined);
      else for (const group of owed.groups) await this.#announce(remote, group);
    } catch {
      this.#owe(remote, undefined);
    }
  }

  /**
   * The value of `key` from the shared store, or loaded here under the
   * store's lock for it (then written there), or loaded here when the store
   * is unavailable or another replica's load takes longer than `remoteWaitMs`.
   */
  async #loadShared(
    remote: RemoteStore,
    key: string,
    load: () => Promise<V>,
    isCurrent: ((value: V) => boolean) | undefined,
  ): Promise<Entry<V>> {
    const usable = (entry: Entry<V> | undefined): entry is Entry<V> =>
      entry !== undefined && (isCurrent === undefined || isCurrent(entry.value));
    const storeKey = this.#remoteKey(remote, key);
    const groupKey = this.#groupKey(remote, this.#groupOf(key));
    let generations: Generations = { cache: undefined, group: undefined };
    /** The stored value, if it is fresh and of the current generations of the cache and of its group. */
    const lookUp = async (): Promise<Entry<V> | undefined> => {
      const [text, cache, group] = await Promise.all([
        remote.get(storeKey),
        remote.get(this.#generationKey(remote)),
        remote.get(groupKey),
      ]);
      generations = { cache, group };
      return this.#fresh(text, generations);
    };
    const lockKey = remote.key('cache-lock', this.name, key);
    const deadline = Date.now() + this.#remoteWaitMs;
    let locked = false;
    try {
      while (remote.available && !locked) {
        const found = await lookUp();
        if (usable(found)) {
          this.#onLookup?.(true);
          return found;
        }
        locked = await remote.acquire(lockKey, this.#remoteWaitMs);
        if (locked) {
          // The previous holder of the lock may have stored the value since it was looked for.
          const stored = await lookUp();
          if (usable(stored)) {
            remote.release(lockKey).catch(() => {});
            this.#onLookup?.(true);
            return stored;
          }
        } else {
          if (Date.now() >= deadline) break;
          await delay(remotePollMs);
        }
      }
    } catch {
      // Redis trouble: this process loads the value itself.
    }
    this.#onLookup?.(false);
    const started = this.#now();
    try {
      const entry: Entry<V> = { value: await load(), expiresAt: started + this.#ttlMs };
      const ttlMs = entry.expiresAt - this.#now();
      if (remote.available && ttlMs > 0) {
        const envelope: Envelope<V> = {
          ...entry,
          ...(generations.cache === undefined ? {} : { generation: generations.cache }),
          ...(generations.group === undefined ? {} : { groupGeneration: generations.group }),
        };
        remote.set(storeKey, JSON.stringify(envelope), ttlMs).catch(() => {});
      }
      return entry;
    } finally {
      if (locked) remote.release(lockKey).catch(() => {});
    }
  }

  /** A value read from the shared store, if it is one, still fresh, and of the generations now current. */
  #fresh(text: string | undefined, current: Generations): Entry<V> | undefined {
    if (text === undefined) return undefined;
    try {
      const envelope = JSON.parse(text) as Envelope<V>;
      if (envelope.generation !== current.cache) return undefined;
      if (envelope.groupGeneration !== current.group) return undefined;
      const expiresAt = Math.min(envelope.expiresAt, this.#now() + this.#ttlMs);
      return this.#now() < expiresAt ? { value: envelope.value, expiresAt } : undefined;
    } catch {
      return undefined;
    }
  }

  #remoteKey(remote: RemoteStore, key: string): string {
    return remote.key('cache', this.name, key);
  }

  /** Where the shared store keeps this cache's generation, renewed by every `clear()`. */
  #generationKey(remote: RemoteStore): string {
    return remote.key('cache-generation', this.name);
  }

  /** Where the shared store keeps a group's generation, renewed by every `forget(group)`; also what its message names. */
  #groupKey(remote: RemoteStore, group: string): string {
    return remote.key('cache-group', this.name, group);
  }

  /** The mark every invalidation of this cache renews: a replica that finds it changed has missed one. */
  #markKey(remote: RemoteStore): string {
    return remote.key('cache-invalidated', this.name);
  }

  /** The channel on which an invalidation tells the other replicas (named for its first use, `clear()`). */
  #invalidatedChannel(remote: RemoteStore): string {
    return remote.key('cache-cleared', this.name);
  }

  #store(key: string, entry: Entry<V>): void {
    const remote = this.#remote;
    const kept =
      remote === undefined
        ? entry
        : { ...entry, groupKey: this.#groupKey(remote, this.#groupOf(key)) };
    this.#entries.delete(key);
    this.#entries.set(key, kept);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }
}
