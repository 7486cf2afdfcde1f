import { randomBytes } from 'node:crypto';

type TokenKind = 'refresh' | 'access';

interface IssuedToken {
  kind: TokenKind;
  username: string;
  expiresAt: number;
}

export interface Vra8Lifetimes {
  /** Bearer tokens, from the CSP login's `access_token` or `/iaas/api/login`. */
  accessMs: number;
  /** The CSP login's `refresh_token`. */
  refreshMs: number;
}

/**
 * The identity side of vRA 8: CSP refresh tokens and bearer tokens, each with
 * its lifetime, checked, revoked. Tokens are opaque random strings (real ones
 * are JWTs; a client must not read them).
 */
export class Vra8Identity {
  readonly #tokens = new Map<string, IssuedToken>();
  readonly lifetimes: Vra8Lifetimes;
  readonly #now: () => number;

  constructor(lifetimes: Vra8Lifetimes, now: () => number = Date.now) {
    this.lifetimes = lifetimes;
    this.#now = now;
  }

  issue(kind: TokenKind, username: string): { token: string; expiresInS: number } {
    const lifetime = kind === 'refresh' ? this.lifetimes.refreshMs : this.lifetimes.accessMs;
    const token = randomBytes(kind === 'refresh' ? 24 : 48).toString('base64url');
    this.#tokens.set(token, { kind, username, expiresAt: this.#now() + lifetime });
    return { token, expiresInS: Math.max(1, Math.floor(lifetime / 1000)) };
  }

  /** The user of a valid token of this kind, or undefined (unknown, expired, revoked). */
  userOf(token: string, kind: TokenKind): string | undefined {
    const issued = this.#tokens.get(token);
    if (issued === undefined || issued.kind !== kind || this.#now() >= issued.expiresAt)
      return undefined;
    return issued.username;
  }

  revoke(token: string): boolean {
    const issued = this.#tokens.get(token);
    if (issued === undefined) return false;
    issued.expiresAt = 0;
    return true;
  }

  /** Expires this user's tokens of the kinds given (bearer tokens by default). */
  expireOf(username: string, kinds: readonly TokenKind[] = ['access']): void {
    for (const issued of this.#tokens.values())
      if (issued.username === username && kinds.includes(issued.kind)) issued.expiresAt = 0;
  }

  expireAll(kinds: readonly TokenKind[] = ['access']): void {
    for (const issued of this.#tokens.values())
      if (kinds.includes(issued.kind)) issued.expiresAt = 0;
  }

  issued(kind?: TokenKind): string[] {
    return [...this.#tokens]
      .filter(([, issued]) => kind === undefined || issued.kind === kind)
      .map(([token]) => token);
  }
}
