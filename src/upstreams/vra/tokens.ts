import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { registerSecrets } from '../../http/redact.ts';

/** What `POST /identity/api/tokens` takes. */
export interface VraCredential {
  readonly username: string;
  readonly password: string;
  readonly tenant: string;
}

/** A bearer token and the instant (epoch ms) vRA says it expires. */
export interface IssuedToken {
  readonly id: string;
  readonly expiresAt: number;
}

/** Obtains a token from vRA; `context` is the caller that started the request (for tracing). */
export type TokenIssuer<C> = (credential: VraCredential, context: C) => Promise<IssuedToken>;

export interface TokenCacheOptions<C> {
  /** Its failure reaches every caller waiting for that token, and is not cached. */
  issue: TokenIssuer<C>;
  /** Epoch ms; a fake clock in tests. */
  now?: () => number;
}

interface CachedToken {
  readonly id: string;
  /** Past this instant, the token is obtained again before use. */
  readonly renewAt: number;
  /** Ends the token's place among the secrets every redaction takes out. */
  readonly forget: () => void;
}

interface Entry {
  current: CachedToken | undefined;
  pending: Promise<string> | undefined;
}

/** Renew 60 s before `expires`, or 10% of the lifetime ahead for short-lived tokens. */
export function renewMarginMs(lifetimeMs: number): number {
  return Math.min(60_000, Math.max(0, lifetimeMs) * 0.1);
}

/** A key object, made once: an HMAC given raw key bytes makes one per call (about 15 µs on Node 24). */
const identityKey = createSecretKey(randomBytes(32));
/** Each credential object is hashed once: the service account's is one object for the life of the process. */
const identities = new WeakMap<VraCredential, string>();

/**
 * The cache key of a credential: a keyed hash of tenant, user AND password, so
 * that (once users bring their own credentials) a wrong password can never be
 * served someone's cached token, and no secret is kept as a map key.
 */
export function credentialIdentity(credential: VraCredential): string {
  let identity = identities.get(credential);
  if (identity === undefined) {
    identity = createHmac('sha256', identityKey)
      .update(`${credential.tenant}\u0000${credential.username}\u0000${credential.password}`)
      .digest('hex');
    identities.set(credential, identity);
  }
  return identity;
}

/**
 * Bearer tokens per credential: obtained lazily, one request in flight per
 * credential however many calls wait for it, renewed shortly before they
 * expire, and dropped when vRA answers 401 to them.
 */
export class TokenCache<C> {
  readonly #entries = new Map<string, Entry>();
  readonly #issue: TokenIssuer<C>;
  readonly #now: () => number;

  constructor(options: TokenCacheOptions<C>) {
    this.#issue = options.issue;
    this.#now = options.now ?? Date.now;
  }

  /** A usable token for the credential: the cached one, the one being obtained, or a new one. */
  token(credential: VraCredential, context: C): Promise<string> {
    const entry = this.#entry(credentialIdentity(credential));
    if (entry.current !== undefined && this.#now() < entry.current.renewAt) {
      return Promise.resolve(entry.current.id);
    }
    entry.pending ??= this.#obtain(credential, context, entry);
    return entry.pending;
  }

  /**
   * vRA answered 401 to `rejected`: forget it, unless it was already replaced
   * (several calls rejected at once then share one new token).
   */
  reject(credential: VraCredential, rejected: string): void {
    const entry = this.#entries.get(credentialIdentity(credential));
    if (entry?.current?.id === rejected) {
      entry.current.forget();
      entry.current = undefined;
    }
  }

  /** Forgets every token (e.g. on shutdown). */
  clear(): void {
    for (const entry of this.#entries.values()) entry.current?.forget();
    this.#entries.clear();
  }

  #entry(key: string): Entry {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { current: undefined, pending: undefined };
      this.#entries.set(key, entry);
    }
    return entry;
  }

  async #obtain(credential: VraCredential, context: C, entry: Entry): Promise<string> {
    try {
      const issued = await this.#issue(credential, context);
      const lifetime = issued.expiresAt - this.#now();
      entry.current?.forget();
      entry.current = {
        id: issued.id,
        renewAt: issued.expiresAt - renewMarginMs(lifetime),
        forget: registerSecrets([issued.id]),
      };
      return issued.id;
    } finally {
      entry.pending = undefined;
    }
  }
}
