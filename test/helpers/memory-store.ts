import { keyDigest, type RemoteStore } from '../../src/cache/remote-store.ts';

/** What several replicas' stores share: one Redis, in memory. */
export class MemoryRedis {
  readonly values = new Map<string, { value: string; expiresAt: number }>();
  readonly channels = new Map<string, Set<(message: string) => void>>();
  /** False: every store answers as Redis would when down (unavailable, every call fails). */
  up = true;
  /** Commands each replica sent, by name. */
  readonly commands: string[] = [];
  /** Replicas whose process hangs: their commands are never answered (nor renew their leases). */
  readonly frozen = new Set<string>();

  /** A replica's view of this Redis. */
  store(replicaId: string): RemoteStore {
    return new MemoryStore(this, replicaId);
  }

  read(key: string): string | undefined {
    const entry = this.values.get(key);
    if (entry === undefined) return undefined;
    if (Date.now() >= entry.expiresAt) {
      this.values.delete(key);
      return undefined;
    }
    return entry.value;
  }
}

class MemoryStore implements RemoteStore {
  readonly #redis: MemoryRedis;
  readonly replicaId: string;

  constructor(redis: MemoryRedis, replicaId: string) {
    this.#redis = redis;
    this.replicaId = replicaId;
  }

  get available(): boolean {
    return this.#redis.up;
  }

  key(kind: string, ...parts: readonly string[]): string {
    return `${kind}:${keyDigest(parts)}`;
  }

  async get(key: string): Promise<string | undefined> {
    await this.#command('get');
    return this.#redis.read(key);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#command('set');
    this.#redis.values.set(key, { value, expiresAt: Date.now() + ttlMs });
  }

  async delete(key: string): Promise<void> {
    await this.#command('delete');
    this.#redis.values.delete(key);
  }

  async acquire(key: string, ttlMs: number): Promise<boolean> {
    await this.#command('acquire');
    if (this.#redis.read(key) !== undefined) return false;
    this.#redis.values.set(key, { value: this.replicaId, expiresAt: Date.now() + ttlMs });
    return true;
  }

  async renew(key: string, ttlMs: number): Promise<boolean> {
    await this.#command('renew');
    if (this.#redis.read(key) !== this.replicaId) return false;
    this.#redis.values.set(key, { value: this.replicaId, expiresAt: Date.now() + ttlMs });
    return true;
  }

  async release(key: string): Promise<void> {
    await this.#command('release');
    if (this.#redis.read(key) === this.replicaId) this.#redis.values.delete(key);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#command('publish');
    for (const listener of this.#redis.channels.get(channel) ?? []) listener(message);
  }

  subscribe(channel: string, listener: (message: string) => void): () => void {
    const listeners = this.#redis.channels.get(channel) ?? new Set();
    this.#redis.channels.set(channel, listeners);
    // A message reaches a subscriber only while Redis is up, as over a real connection.
    const deliver = (message: string): void => {
      if (this.#redis.up) listener(message);
    };
    listeners.add(deliver);
    return () => listeners.delete(deliver);
  }

  #command(name: string): Promise<void> {
    if (this.#redis.frozen.has(this.replicaId)) return new Promise(() => {});
    if (!this.#redis.up) return Promise.reject(new Error('Connection is closed.'));
    this.#redis.commands.push(`${this.replicaId} ${name}`);
    return Promise.resolve();
  }
}
