import { createHash, randomBytes } from 'node:crypto';
import type { RemoteStore } from '../cache/remote-store.ts';
import { registerSecrets } from '../http/redact.ts';
import { SessionCipher } from './session-crypto.ts';

/** A person signed in with `signIn`: their vRA token stands behind the opaque cookie. */
export interface Session {
  readonly username: string;
  readonly tenant: string;
  /** The vRA bearer token issued to the user: never sent to the browser. */
  readonly vraToken: string;
  /** Epoch ms: the vRA token's expiry, the session's end. */
  readonly expiresAt: number;
}

export interface SessionStoreOptions {
  /** Shared with the other replicas (Redis); sessions there are sealed with `secret`. */
  remote?: RemoteStore | undefined;
  secret?: string | undefined;
  now?: () => number;
}

interface Held {
  session: Session;
  forget: () => void;
}

const endedChannel = 'session-ended';

/** vRA's longest token lifetime by default (24 h): an ended session is remembered that long at most. */
const maxSessionMs = 24 * 60 * 60 * 1000;

/**
 * The shared store (Redis) cannot be asked now, or did not confirm a write:
 * a cookie's session cannot be told (not an ended session: the cookie stays),
 * started or ended.
 */
export class SessionStoreUnavailableError extends Error {
  constructor() {
    super('Sessions cannot be checked right now: the shared session store is unavailable.');
    this.name = 'SessionStoreUnavailableError';
  }
}

/** The store's name for a cookie value: its digest. The cookie itself is never kept. */
function digestOf(cookie: string): string {
  return createHash('sha256').update(cookie, 'utf8').digest('base64url');
}

function isSession(value: unknown): value is Session {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return (
    typeof s['username'] === 'string' &&
    typeof s['tenant'] === 'string' &&
    typeof s['vraToken'] === 'string' &&
    typeof s['expiresAt'] === 'number'
  );
}

/**
 * Sessions by the digest of their cookie. Kept in this process and, with
 * Redis, sealed there too so that every replica (and one restarted) knows
 * them. With Redis, Redis alone says whether a session lives: every look-up
 * asks it (a copy held here could have been ended on another replica while
 * this one missed the announcement), a session starts only once Redis holds
 * it and ends only once Redis confirms the delete. While Redis cannot answer,
 * cookies are neither accepted nor ended (SessionStoreUnavailableError).
 */
export class SessionStore {
  readonly #local = new Map<string, Held>();
  /** Digests of sessions ended here or announced ended, until they would have expired: refused without asking Redis. */
  readonly #ended = new Map<string, number>();
  readonly #remote: RemoteStore | undefined;
  readonly #cipher: SessionCipher | undefined;
  readonly #now: () => number;
  readonly #unsubscribe: (() => void) | undefined;

  constructor(options: SessionStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    if (options.remote !== undefined) {
      if (options.secret === undefined) throw new Error('Sessions kept in Redis need a secret.');
      this.#remote = options.remote;
      this.#cipher = new SessionCipher(options.secret);
      this.#unsubscribe = options.remote.subscribe(options.remote.key(endedChannel), (digest) => {
        this.#remember(digest);
        this.#drop(digest);
      });
    }
  }

  /**
   * Starts a session; answers the cookie value (256 random bits), which only
   * the browser keeps. Throws SessionStoreUnavailableError when Redis does not
   * confirm it holds the session (no replica, this one included, would accept it).
   */
  async create(session: Session): Promise<string> {
    const cookie = randomBytes(32).toString('base64url');
    const digest = digestOf(cookie);
    const ttl = session.expiresAt - this.#now();
    if (this.#remote !== undefined && this.#cipher !== undefined && ttl > 0) {
      const key = this.#key(digest);
      await this.#remote
        .set(key, this.#cipher.seal(JSON.stringify(session), key), ttl)
        .catch(() => {
          throw new SessionStoreUnavailableError();
        });
    }
    this.#hold(digest, session);
    return cookie;
  }

  /**
   * The live session of a cookie, or undefined (unknown, ended, expired).
   * Throws SessionStoreUnavailableError when Redis cannot be asked.
   */
  async get(cookie: string): Promise<Session | undefined> {
    const digest = digestOf(cookie);
    if (this.#ended.has(digest)) return undefined;
    let session = this.#local.get(digest)?.session;
    const expired = session !== undefined && session.expiresAt <= this.#now();
    // An expired copy needs no asking: whatever Redis says, it is over.
    if (!expired && this.#remote !== undefined && this.#cipher !== undefined) {
      session = await this.#fetch(digest, this.#remote, this.#cipher);
    }
    if (session !== undefined && session.expiresAt <= this.#now()) {
      // Redis let it go with its TTL: only this replica's copy is left to forget.
      this.#remember(digest);
      this.#drop(digest);
      return undefined;
    }
    return session;
  }

  /** This replica's copy of a cookie's session, unchecked: only to revoke its vRA token when it cannot be checked. */
  heldCopy(cookie: string): Session | undefined {
    return this.#local.get(digestOf(cookie))?.session;
  }

  /**
   * Ends the session of a cookie here and on every replica: this replica
   * forgets it at once; with Redis, it has ended everywhere only when this
   * resolves. Throws SessionStoreUnavailableError when Redis does not confirm
   * the delete (other replicas may still accept the cookie).
   */
  async end(cookie: string): Promise<void> {
    const digest = digestOf(cookie);
    this.#remember(digest);
    this.#drop(digest);
    if (this.#remote === undefined) return;
    await this.#remote.delete(this.#key(digest)).catch(() => {
      throw new SessionStoreUnavailableError();
    });
    // Only lets the other replicas forget their copy (and its token) early: they ask Redis anyway.
    await this.#remote.publish(this.#remote.key(endedChannel), digest).catch(() => {});
  }

  close(): void {
    this.#unsubscribe?.();
    for (const digest of [...this.#local.keys()]) this.#drop(digest);
  }

  /** The session Redis holds for a digest, held here too while it lives (its token a secret). */
  async #fetch(
    digest: string,
    remote: RemoteStore,
    cipher: SessionCipher,
  ): Promise<Session | undefined> {
    if (!remote.available) throw new SessionStoreUnavailableError();
    const key = this.#key(digest);
    const sealed = await remote.get(key).catch(() => {
      throw new SessionStoreUnavailableError();
    });
    const plain = sealed === undefined ? undefined : cipher.open(sealed, key);
    const parsed: unknown = plain === undefined ? undefined : JSON.parse(plain);
    // Announced ended while Redis was asked: the answer may predate the delete.
    if (!isSession(parsed) || this.#ended.has(digest)) {
      this.#drop(digest);
      return undefined;
    }
    const held = this.#local.get(digest)?.session;
    if (held?.vraToken !== parsed.vraToken || held.expiresAt !== parsed.expiresAt) {
      this.#hold(digest, parsed);
    }
    return parsed;
  }

  #key(digest: string): string {
    return this.#remote?.key('session', digest) ?? digest;
  }

  #remember(digest: string): void {
    const now = this.#now();
    const until = this.#local.get(digest)?.session.expiresAt ?? now + maxSessionMs;
    if (this.#ended.size >= 10_000) {
      for (const [old, end] of this.#ended) if (end <= now) this.#ended.delete(old);
    }
    this.#ended.set(digest, until);
  }

  #hold(digest: string, session: Session): void {
    this.#drop(digest);
    this.#sweep();
    // The user's vRA token is a secret like the service accounts': no log or error repeats it.
    this.#local.set(digest, { session, forget: registerSecrets([session.vraToken]) });
  }

  #drop(digest: string): void {
    const held = this.#local.get(digest);
    if (held === undefined) return;
    held.forget();
    this.#local.delete(digest);
  }

  /** Expired sessions go as new ones come: the map never holds more than the live ones and a few. */
  #sweep(): void {
    const now = this.#now();
    for (const [digest, held] of this.#local) {
      if (held.session.expiresAt <= now) this.#drop(digest);
    }
  }
}
