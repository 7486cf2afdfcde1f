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
}

/** How a value travels through the shared store. */
interface Envelope<V> {
  value: V;
  expiresAt: number;
  /** The cache's generation when the value's lookup began (absent: never cleared). */
  generation?: string;
}

/** How often a replica waiting for another's load looks for its value. */
const remotePollMs = 25;

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
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
  #onLookup: ((hit: boolean) => void) | undefined;

  constructor(options: SharedCacheOptions) {
    if (!(options.ttlMs > 0)) throw new RangeError('ttlMs must be positive');
    if (!(options.maxEntries >= 1)) throw new RangeError('maxEntries must be at least 1');
    this.name = options.name;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
    this.#now = options.now ?? (() => Date.now());
    this.#remote = options.remote;
    this.#remoteWaitMs = options.remoteWaitMs ?? 5000;
    options.remote?.subscribe(this.#clearedChannel(options.remote), () => this.#forgetLocal());
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
    const entry = this.#entries.get(key);
    if (entry !== undefined && !isCurrent(entry.value)) this.#entries.delete(key);
    return this.#get(key, load, isCurrent);
  }

  #get(
    key: string,
    load: () => Promise<V>,
    isCurrent: ((value: V) => boolean) | undefined,
  ): Promise<V> {
    const now = this.#now();
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      if (now < entry.expiresAt) {
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
   * Forgets `key`, here and in the shared store (a load in flight still
   * answers its waiters but is not kept).
   */
  delete(key: string): void {
    this.#entries.delete(key);
    this.#pending.delete(key);
    const remote = this.#remote;
    if (remote?.available === true) remote.delete(this.#remoteKey(remote, key)).catch(() => {});
  }

  /**
   * Forgets every entry, on every replica: this process's at once, the
   * other replicas' when the shared store's message reaches them, and the
   * shared store's by a new generation, so that no value looked up before
   * now is taken from it again. The generation key lives one TTL: by then
   * every value stored before it has expired. Settles once the store has
   * the new generation and the message is sent (never fails: Redis trouble
   * leaves the other replicas to their TTL).
   */
  async clear(): Promise<void> {
    this.#forgetLocal();
    const remote = this.#remote;
    if (remote?.available !== true) return;
    const generation = randomUUID();
    try {
      await remote.set(this.#generationKey(remote), generation, this.#ttlMs);
      await remote.publish(this.#clearedChannel(remote), generation);
    } catch {
      // Redis trouble is never an error (see the class).
    }
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
    let generation: string | undefined;
    /** The stored value, if it is fresh and of the cache's current generation. */
    const lookUp = async (): Promise<Entry<V> | undefined> => {
      const [text, current] = await Promise.all([
        remote.get(storeKey),
        remote.get(this.#generationKey(remote)),
      ]);
      generation = current;
      return this.#fresh(text, current);
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
        const envelope: Envelope<V> = generation === undefined ? entry : { ...entry, generation };
        remote.set(storeKey, JSON.stringify(envelope), ttlMs).catch(() => {});
      }
      return entry;
    } finally {
      if (locked) remote.release(lockKey).catch(() => {});
    }
  }

  /** A value read from the shared store, if it is one, still fresh, and of the `generation` now current. */
  #fresh(text: string | undefined, generation: string | undefined): Entry<V> | undefined {
    if (text === undefined) return undefined;
    try {
      const envelope = JSON.parse(text) as Envelope<V>;
      if (envelope.generation !== generation) return undefined;
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

  /** The channel on which a `clear()` tells the other replicas. */
  #clearedChannel(remote: RemoteStore): string {
    return remote.key('cache-cleared', this.name);
  }

  #store(key: string, entry: Entry<V>): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }
}
