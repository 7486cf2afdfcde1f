import { keyDigest, type RemoteStore } from '../../src/cache/remote-store.ts';

/** What several replicas' stores share: one Redis, in memory. */
export class MemoryRedis {
  readonly values = new Map<string, { value: string; expiresAt: number }>();
  readonly channels = new Map<string, Set<(message: string) => void>>();
  #up = true;
  /** How many times Redis went down or came back (every replica's subscription was cut). */
  #outages = 0;
  /** Replicas that cannot reach this Redis (the others can), with how often each was cut off. */
  readonly #cut = new Set<string>();
  readonly #cuts = new Map<string, number>();
  /** Commands each replica sent, by name. */
  readonly commands: string[] = [];
  /** Replicas whose process hangs: their commands are never answered (nor renew their leases). */
  readonly frozen = new Set<string>();

  /** False: every store answers as Redis would when down (unavailable, every call fails, no message arrives). */
  get up(): boolean {
    return this.#up;
  }

  set up(up: boolean) {
    if (up !== this.#up) this.#outages += 1;
    this.#up = up;
  }

  /** Cuts one replica off (`reachable` false) or lets it reach Redis again, as a network partition would. */
  reachable(replicaId: string, reachable: boolean): void {
    if (reachable === !this.#cut.has(replicaId)) return;
    if (reachable) this.#cut.delete(replicaId);
    else this.#cut.add(replicaId);
    this.#cuts.set(replicaId, (this.#cuts.get(replicaId) ?? 0) + 1);
  }

  /** Whether `replicaId` reaches Redis now. */
  reaches(replicaId: string): boolean {
    return this.#up && !this.#cut.has(replicaId);
  }

  /** Changes whenever `replicaId`'s subscription is cut or made again. */
  epochOf(replicaId: string): number {
    return this.#outages + (this.#cuts.get(replicaId) ?? 0);
  }

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
    return this.#redis.reaches(this.replicaId);
  }

  get epoch(): number {
    return this.#redis.epochOf(this.replicaId);
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

  async increment(key: string, ttlMs: number): Promise<{ count: number; ttlMs: number }> {
    await this.#command('increment');
    const entry = this.#redis.read(key) === undefined ? undefined : this.#redis.values.get(key);
    const expiresAt = entry?.expiresAt ?? Date.now() + ttlMs;
    const count = Number(entry?.value ?? '0') + 1;
    this.#redis.values.set(key, { value: String(count), expiresAt });
    return { count, ttlMs: expiresAt - Date.now() };
  }

  async decrement(key: string): Promise<void> {
    await this.#command('decrement');
    const entry = this.#redis.read(key) === undefined ? undefined : this.#redis.values.get(key);
    if (entry !== undefined) entry.value = String(Number(entry.value) - 1);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#command('publish');
    for (const listener of this.#redis.channels.get(channel) ?? []) listener(message);
  }

  subscribe(channel: string, listener: (message: string) => void): () => void {
    const listeners = this.#redis.channels.get(channel) ?? new Set();
    this.#redis.channels.set(channel, listeners);
    // A message reaches a subscriber only while it reaches Redis, as over a real connection.
    const deliver = (message: string): void => {
      if (this.#redis.reaches(this.replicaId)) listener(message);
    };
    listeners.add(deliver);
    return () => listeners.delete(deliver);
  }

  #command(name: string): Promise<void> {
    if (this.#redis.frozen.has(this.replicaId)) return new Promise(() => {});
    if (!this.#redis.reaches(this.replicaId)) {
      return Promise.reject(new Error('Connection is closed.'));
    }
    this.#redis.commands.push(`${this.replicaId} ${name}`);
    return Promise.resolve();
  }
}
