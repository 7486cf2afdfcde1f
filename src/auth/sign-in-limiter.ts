import { isIP } from 'node:net';
import type { RemoteStore } from '../cache/remote-store.ts';

/** How many failed sign-ins a window allows, per user name and per client address. */
export interface SignInLimits {
  perUser: number;
  perAddress: number;
  windowMs: number;
}

export const signInLimits: SignInLimits = { perUser: 5, perAddress: 20, windowMs: 5 * 60_000 };

/** A sign-in the limits let through to vRA: it holds one place of its user name and one of its address. */
export interface SignInAttempt {
  /** vRA accepted the credentials: this attempt's own places are given back (no other's). */
  succeeded(): Promise<void>;
}

/** An attempt let through, or the seconds until attempts are taken again. */
export type SignInReservation =
  { granted: true; attempt: SignInAttempt } | { granted: false; retryAfter: number };

interface Window {
  count: number;
  endsAt: number;
}

type Key = readonly [key: string, limit: number];

/**
 * Sign-in attempts counted in fixed windows that start at a key's first
 * attempt. A place is taken before the attempt is sent to vRA (so attempts
 * sent side by side, in parallel or in one batch, cannot all pass one check)
 * and kept unless vRA accepts the credentials: a success gives back its own
 * place only, never the failures sent beside it.
 *
 * Counted in this process always, and with a shared store (REDIS_URL) in it
 * too, with an atomic increment-then-check: replicas share the counts, and
 * while the store is unreachable each replica still holds its own.
 */
export class SignInLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #limits: SignInLimits;
  readonly #now: () => number;
  readonly #remote: RemoteStore | undefined;

  constructor(
    limits: SignInLimits = signInLimits,
    now: () => number = Date.now,
    remote?: RemoteStore,
  ) {
    this.#limits = limits;
    this.#now = now;
    this.#remote = remote;
  }

  async reserve(username: string, address: string | null): Promise<SignInReservation> {
    const keys = this.#keys(username, address);
    const local = this.#reserveLocally(keys);
    if (!local.granted) return local;
    const remote = await this.#reserveRemotely(keys);
    if (remote !== undefined && !remote.granted) {
      local.release();
      return remote;
    }
    return {
      granted: true,
      attempt: {
        succeeded: async () => {
          local.release();
          await remote?.release();
        },
      },
    };
  }

  #keys(username: string, address: string | null): Key[] {
    const keys: Key[] = [[userKey(username), this.#limits.perUser]];
    if (address !== null) keys.push([addressKey(address), this.#limits.perAddress]);
    return keys;
  }

  #reserveLocally(
    keys: readonly Key[],
  ): { granted: true; release: () => void } | { granted: false; retryAfter: number } {
    const now = this.#now();
    let wait = 0;
    for (const [key, limit] of keys) {
      const window = this.#live(key, now);
      if (window !== undefined && window.count >= limit) {
        wait = Math.max(wait, window.endsAt - now);
      }
    }
    if (wait > 0) return { granted: false, retryAfter: seconds(wait) };
    const taken = keys.map(([key]) => {
      let window = this.#live(key, now);
      if (window === undefined) {
        window = { count: 0, endsAt: now + this.#limits.windowMs };
        this.#windows.set(key, window);
      }
      window.count += 1;
      return window;
    });
    if (this.#windows.size > 10_000) this.#sweep(now);
    let released = false;
    return {
      granted: true,
      release: () => {
        if (released) return;
        released = true;
        // a window that ended meanwhile is gone or replaced: nothing of it to give back
        for (const window of taken) window.count = Math.max(0, window.count - 1);
      },
    };
  }

  /** Undefined when there is no shared store, or it cannot answer now (the local count stands alone). */
  async #reserveRemotely(
    keys: readonly Key[],
  ): Promise<
    | { granted: true; release: () => Promise<void> }
    | { granted: false; retryAfter: number }
    | undefined
  > {
    const remote = this.#remote;
    if (remote === undefined || !remote.available) return undefined;
    const taken: string[] = [];
    const giveBack = async (): Promise<void> => {
      await Promise.all(taken.map((key) => remote.decrement(key).catch(() => {})));
    };
    try {
      for (const [name, limit] of keys) {
        const key = remote.key('sign-in-attempts', name);
        const counted = await remote.increment(key, this.#limits.windowMs);
        taken.push(key);
        if (counted.count > limit) {
          await giveBack();
          return { granted: false, retryAfter: seconds(counted.ttlMs) };
        }
      }
    } catch {
      await giveBack();
      return undefined;
    }
    let released = false;
    return {
      granted: true,
      release: async () => {
        if (released) return;
        released = true;
        await giveBack();
      },
    };
  }

  #live(key: string, now: number): Window | undefined {
    const window = this.#windows.get(key);
    if (window !== undefined && window.endsAt <= now) {
      this.#windows.delete(key);
      return undefined;
    }
    return window;
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** vRA user names are `user@domain` and compared without regard to case. */
function userKey(username: string): string {
  return `user:${username.trim().toLowerCase()}`;
}

/**
 * An IPv4 address counts alone; an IPv6 address with its /64, the block one
 * host or network is given (otherwise one client would have 2^64 addresses to spread attempts over).
 */
function addressKey(address: string): string {
  if (isIP(address) !== 6) return `address:${address}`;
  const [head = '', tail] = address.toLowerCase().split('::');
  const part = (text: string): string[] => (text === '' ? [] : text.split(':'));
  // an embedded IPv4 (the last 32 bits) spans two groups
  const width = (groups: string[]): number =>
    groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const zeros = Array<string>(Math.max(0, 8 - width(left) - width(right))).fill('0');
  const groups = [...left, ...zeros, ...right].slice(0, 4);
  return `address:${groups.map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}
