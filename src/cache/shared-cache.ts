import type { CacheStats } from '../observability/metrics.ts';

export interface SharedCacheOptions {
  /** Name in metrics (`gateway_cache_*{cache}`). */
  name: string;
  /** How long a loaded value serves, from the moment its load started; must be > 0. */
  ttlMs: number;
  /** Entries kept at most; beyond it the oldest is evicted. */
  maxEntries: number;
  /** Epoch ms; a fake clock in tests. */
  now?: () => number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
}

/**
 * Values shared across requests per key for a fixed time: one load in flight
 * per key however many callers wait for it, failures never kept, and at most
 * `maxEntries` keys (the oldest evicted first).
 */
export class SharedCache<V> implements CacheStats {
  readonly name: string;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry<V>>();
  readonly #pending = new Map<string, Promise<V>>();
  #onLookup: ((hit: boolean) => void) | undefined;

  constructor(options: SharedCacheOptions) {
    if (!(options.ttlMs > 0)) throw new RangeError('ttlMs must be positive');
    if (!(options.maxEntries >= 1)) throw new RangeError('maxEntries must be at least 1');
    this.name = options.name;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
    this.#now = options.now ?? (() => Date.now());
  }

  /** Told of every lookup: hit (a fresh value or a load already in flight) or miss. */
  observe(listener: (hit: boolean) => void): void {
    this.#onLookup = listener;
  }

  /** The fresh value of `key`, the load in flight for it, or a new load. */
  get(key: string, load: () => Promise<V>): Promise<V> {
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
    this.#onLookup?.(false);
    const expiresAt = now + this.#ttlMs;
    const loading: Promise<V> = Promise.resolve()
      .then(load)
      .then(
        (value) => {
          if (this.#pending.get(key) === loading) {
            this.#pending.delete(key);
            this.#store(key, { value, expiresAt });
          }
          return value;
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
   * Like get, but a fresh entry serves only when `isCurrent(value)` holds (a
   * version the caller knows to be the latest); otherwise it is replaced by a
   * new load. A load already in flight serves whatever it answers.
   */
  getCurrent(key: string, isCurrent: (value: V) => boolean, load: () => Promise<V>): Promise<V> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && !isCurrent(entry.value)) this.#entries.delete(key);
    return this.get(key, load);
  }

  /** Forgets `key` (a load in flight still answers its waiters but is not kept). */
  delete(key: string): void {
    this.#entries.delete(key);
    this.#pending.delete(key);
  }

  clear(): void {
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
