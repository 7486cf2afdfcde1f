import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../observability/logger.ts';
import { keyDigest, type RemoteStore } from './remote-store.ts';

export interface RedisStoreOptions {
  url: URL;
  /** Put before every key and channel (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  logger: Logger;
  /** A command not answered within this counts as Redis trouble (default 500 ms). */
  commandTimeoutMs?: number;
  /** How often the connection is checked with a PING (default 1000 ms). */
  healthIntervalMs?: number;
}

const renewScript =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const releaseScript =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const incrementScript = [
  "local count = redis.call('incr', KEYS[1])",
  "local ttl = redis.call('pttl', KEYS[1])",
  "if ttl < 0 then redis.call('pexpire', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end",
  'return { count, ttl }',
].join('\n');
const decrementScript =
  "if redis.call('exists', KEYS[1]) == 1 then return redis.call('decr', KEYS[1]) else return 0 end";

/**
 * The shared store on Redis (ioredis): one connection for commands, one for
 * pub/sub, each reconnecting on its own for as long as the process lives.
 * Nothing waits for Redis: while it is down or slow (a PING or command not
 * answered in time) `available` is false and callers use their local state;
 * it turns true again once a PING is answered.
 */
export class RedisStore implements RemoteStore {
  readonly replicaId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #commands: Redis;
  readonly #subscriber: Redis;
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #health: NodeJS.Timeout;
  #answering = false;
  /** True once the subscriber connection has subscribed again to every channel after it was (re)made. */
  #subscribed = false;
  #epoch = 0;
  #reported: boolean | undefined;
  #closing = false;

  constructor(options: RedisStoreOptions) {
    this.#prefix = options.keyPrefix;
    this.#logger = options.logger;
    const connect = (connectionName: string, autoResubscribe: boolean): Redis =>
      new Redis(options.url.href, {
        connectionName,
        // Commands fail at once while disconnected, instead of waiting in a queue.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: options.commandTimeoutMs ?? 500,
        connectTimeout: 2000,
        retryStrategy: (times: number) => Math.min(100 * times, 1000),
        autoResubscribe,
      });
    this.#commands = connect('gateway', true);
    this.#subscriber = connect('gateway-events', false);
    for (const client of [this.#commands, this.#subscriber]) {
      client.on('error', () => this.#setAnswering(false, true));
      client.on('close', () => this.#setAnswering(false, true));
      client.on('ready', () => void this.#check());
    }
    this.#subscriber.on('ready', () => this.#resubscribe());
    // Messages published while the subscription is cut are lost for this replica.
    this.#subscriber.on('close', () => {
      this.#subscribed = false;
      this.#epoch += 1;
    });
    this.#subscriber.on('message', (channel: string, message: string) => {
      for (const listener of this.#channels.get(channel) ?? []) listener(message);
    });
    this.#logger.info(
      { redis: options.url.host, replicaId: this.replicaId },
      'REDIS_URL is set: caches and pollers are shared with the other replicas through Redis',
    );
    this.#health = setInterval(() => void this.#check(), options.healthIntervalMs ?? 1000);
    this.#health.unref();
  }

  /** Also false until the subscriber has subscribed again after a reconnection (no message is missed once it is true). */
  get available(): boolean {
    return (
      this.#answering &&
      this.#subscribed &&
      this.#commands.status === 'ready' &&
      this.#subscriber.status === 'ready'
    );
  }

  get epoch(): number {
    return this.#epoch;
  }

  key(kind: string, ...parts: readonly string[]): string {
    return `${this.#prefix}${kind}:${keyDigest(parts)}`;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.#run(() => this.#commands.get(key))) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#run(() => this.#commands.set(key, value, 'PX', Math.max(1, Math.round(ttlMs))));
  }

  async delete(key: string): Promise<void> {
    await this.#run(() => this.#commands.del(key));
  }

  async acquire(key: string, ttlMs: number): Promise<boolean> {
    const answer = await this.#run(() =>
      this.#commands.set(key, this.replicaId, 'PX', Math.max(1, Math.round(ttlMs)), 'NX'),
    );
    return answer === 'OK';
  }

  async renew(key: string, ttlMs: number): Promise<boolean> {
    const answer = await this.#run(() =>
      this.#commands.eval(renewScript, 1, key, this.replicaId, Math.max(1, Math.round(ttlMs))),
    );
    return answer === 1;
  }

  async release(key: string): Promise<void> {
    await this.#run(() => this.#commands.eval(releaseScript, 1, key, this.replicaId));
  }

  async increment(key: string, ttlMs: number): Promise<{ count: number; ttlMs: number }> {
    const answer = (await this.#run(() =>
      this.#commands.eval(incrementScript, 1, key, Math.max(1, Math.round(ttlMs))),
    )) as [number, number];
    return { count: answer[0], ttlMs: answer[1] };
  }

  async decrement(key: string): Promise<void> {
    await this.#run(() => this.#commands.eval(decrementScript, 1, key));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#run(() => this.#commands.publish(channel, message));
  }

  subscribe(channel: string, listener: (message: string) => void): () => void {
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.#channels.set(channel, listeners);
      if (this.#subscriber.status === 'ready') {
        this.#subscriber.subscribe(channel).catch(() => this.#setAnswering(false, true));
      }
    }
    listeners.add(listener);
    return () => {
      const current = this.#channels.get(channel);
      if (current === undefined || !current.delete(listener) || current.size > 0) return;
      this.#channels.delete(channel);
      if (this.#subscriber.status === 'ready')
        this.#subscriber.unsubscribe(channel).catch(() => {});
    };
  }

  /** "up" or "unavailable", for /ready. */
  get state(): 'up' | 'unavailable' {
    return this.available ? 'up' : 'unavailable';
  }

  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#health);
    this.#channels.clear();
    await Promise.allSettled([this.#commands.quit(), this.#subscriber.quit()]);
    this.#commands.disconnect();
    this.#subscriber.disconnect();
  }

  /** Runs a command; a failure or a timeout marks Redis unavailable until a PING is answered. */
  async #run<R>(command: () => Promise<R>): Promise<R> {
    try {
      return await command();
    } catch (error) {
      this.#setAnswering(false, true);
      throw error;
    }
  }

  async #check(): Promise<void> {
    if (this.#commands.status !== 'ready') {
      this.#setAnswering(false, true);
      return;
    }
    try {
      await this.#commands.ping();
      this.#setAnswering(true);
    } catch {
      this.#setAnswering(false, true);
    }
  }

  #resubscribe(): void {
    const channels = [...this.#channels.keys()];
    const epoch = this.#epoch;
    const subscribed = (): void => {
      if (this.#epoch !== epoch) return; // cut again meanwhile: the next 'ready' subscribes again
      this.#subscribed = true;
      void this.#check();
    };
    if (channels.length === 0) return subscribed();
    this.#subscriber.subscribe(...channels).then(subscribed, () => this.#setAnswering(false, true));
  }

  /** Logs each change of availability (at start, only an actual failure to connect). */
  #setAnswering(answering: boolean, failed = false): void {
    this.#answering = answering;
    const available = this.available;
    if (this.#reported === available || this.#closing) return;
    if (!available && this.#reported === undefined && !failed) return;
    if (available) {
      this.#logger.info('redis available: caches and pollers are shared with the other replicas');
    } else {
      this.#logger.warn(
        'redis unavailable: serving with local caches and pollers until it is back',
      );
    }
    this.#reported = available;
  }
}
