/** How many failed sign-ins a window allows, per user name and per client address. */
export interface SignInLimits {
  perUser: number;
  perAddress: number;
  windowMs: number;
}

export const signInLimits: SignInLimits = { perUser: 5, perAddress: 20, windowMs: 5 * 60_000 };

interface Window {
  failures: number;
  endsAt: number;
}

/**
 * Failed sign-ins counted in fixed windows that start at a key's first
 * failure. A key at its limit is refused until its window ends; a success
 * clears that user's own count only, never an address's or another user's.
 */
export class SignInLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #limits: SignInLimits;
  readonly #now: () => number;

  constructor(limits: SignInLimits = signInLimits, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Seconds until attempts are taken again, or 0 when this attempt may go to vRA. */
  refusedFor(username: string, address: string | null): number {
    const now = this.#now();
    let wait = 0;
    for (const [key, limit] of this.#keys(username, address)) {
      const window = this.#live(key, now);
      if (window !== undefined && window.failures >= limit) {
        wait = Math.max(wait, Math.ceil((window.endsAt - now) / 1000));
      }
    }
    return wait;
  }

  failed(username: string, address: string | null): void {
    const now = this.#now();
    for (const [key] of this.#keys(username, address)) {
      const window = this.#live(key, now);
      if (window === undefined) {
        this.#windows.set(key, { failures: 1, endsAt: now + this.#limits.windowMs });
      } else {
        window.failures += 1;
      }
    }
    if (this.#windows.size > 10_000) this.#sweep(now);
  }

  succeeded(username: string): void {
    this.#windows.delete(userKey(username));
  }

  #keys(username: string, address: string | null): Array<[string, number]> {
    const keys: Array<[string, number]> = [[userKey(username), this.#limits.perUser]];
    if (address !== null) keys.push([`address:${address}`, this.#limits.perAddress]);
    return keys;
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

/** vRA user names are `user@domain` and compared without regard to case. */
function userKey(username: string): string {
  return `user:${username.trim().toLowerCase()}`;
}
