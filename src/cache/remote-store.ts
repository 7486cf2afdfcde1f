import { createHash } from 'node:crypto';

/**
 * State shared by the gateway's replicas (Redis when `REDIS_URL` is set),
 * used by the caches and the pollers. Every call may fail or find the store
 * unavailable: callers then go on with their local state, never fail for it.
 */
export interface RemoteStore {
  /** False while the store is down or slow: callers keep to their local state without trying it. */
  readonly available: boolean;
  /**
   * Changes whenever messages published to this replica may have been lost
   * (its subscription was cut, or is not yet made again): what a replica
   * learnt from messages must then be checked against the store again.
   */
  readonly epoch: number;
  /** Who this replica is, written as the value of the locks and leases it holds. */
  readonly replicaId: string;
  /** A key of the store for `kind` and `parts`, hashed: no credential or id is ever written as is. */
  key(kind: string, ...parts: readonly string[]): string;
  get(key: string): Promise<string | undefined>;
  /** Sets `key`, to expire after `ttlMs`. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Takes `key` (a lock or a lease) for `ttlMs` if nobody holds it; true when this replica now holds it. */
  acquire(key: string, ttlMs: number): Promise<boolean>;
  /** Extends a lease this replica holds; false when it no longer holds it. */
  renew(key: string, ttlMs: number): Promise<boolean>;
  /** Gives up a lock or lease this replica holds (another's is left alone). */
  release(key: string): Promise<void>;
  /**
   * Adds one to the counter `key` in one atomic step, which a new counter
   * starts to live `ttlMs` from; answers its count and the milliseconds it has left.
   */
  increment(key: string, ttlMs: number): Promise<{ count: number; ttlMs: number }>;
  /** Takes one from the counter `key`, if it still lives (its time to live is kept). */
  decrement(key: string): Promise<void>;
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message on `channel` until the returned function is called. */
  subscribe(channel: string, listener: (message: string) => void): () => void;
}

/** The part of a store key that hides what it is made of (credential digests, ids, URLs). */
export function keyDigest(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex').slice(0, 40);
}

/**
 * The store as seen by the clients of one upstream (`upstreamScope`): its keys also name the
 * upstream (address and service account), so that gateways of different
 * appliances sharing one Redis never read each other's entries.
 */
export function scopedStore(store: RemoteStore, scope: string): RemoteStore {
  return {
    get available() {
      return store.available;
    },
    get epoch() {
      return store.epoch;
    },
    replicaId: store.replicaId,
    key: (kind, ...parts) => store.key(kind, scope, ...parts),
    get: (key) => store.get(key),
    set: (key, value, ttlMs) => store.set(key, value, ttlMs),
    delete: (key) => store.delete(key),
    acquire: (key, ttlMs) => store.acquire(key, ttlMs),
    renew: (key, ttlMs) => store.renew(key, ttlMs),
    release: (key) => store.release(key),
    increment: (key, ttlMs) => store.increment(key, ttlMs),
    decrement: (key) => store.decrement(key),
    publish: (channel, message) => store.publish(channel, message),
    subscribe: (channel, listener) => store.subscribe(channel, listener),
  };
}

/** What tells one upstream from another in the store: its address and service account (hashed into keys). */
export function upstreamScope(
  service: string,
  upstream: { url: URL; username: string | undefined; tenant?: string | undefined },
): string {
  return JSON.stringify([
    service,
    upstream.url.href,
    upstream.username ?? '',
    upstream.tenant ?? '',
  ]);
}
