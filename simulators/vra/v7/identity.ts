import { randomBytes } from 'node:crypto';

interface IssuedToken {
  expiresAt: number;
  tenant: string;
  username: string;
}

/** The identity service's tokens: issued with a lifetime, checked, revoked. */
export class TokenStore {
  readonly #tokens = new Map<string, IssuedToken>();
  lifetimeMs: number;

  constructor(lifetimeMs: number) {
    this.lifetimeMs = lifetimeMs;
  }

  issue(username: string, tenant: string): { id: string; expires: string } {
    const now = Date.now();
    const expiresAt = now + this.lifetimeMs;
    // Shaped like vRA's: base64 of "<issued>:<hex>:tenant:<t>username:<u>expiration:<ms>:<hex>".
    const id = Buffer.from(
      `${now}:${randomBytes(10).toString('hex')}:tenant:${tenant}username:${username}expiration:${expiresAt}:${randomBytes(64).toString('hex')}`,
      'utf8',
    ).toString('base64');
    this.#tokens.set(id, { expiresAt, tenant, username });
    return { id, expires: new Date(expiresAt).toISOString() };
  }

  isValid(id: string): boolean {
    const token = this.#tokens.get(id);
    return token !== undefined && Date.now() < token.expiresAt;
  }

  /** The user a valid token was issued to, or undefined. */
  userOf(id: string): string | undefined {
    return this.isValid(id) ? this.#tokens.get(id)?.username : undefined;
  }

  revoke(id: string): boolean {
    const token = this.#tokens.get(id);
    if (token === undefined) return false;
    this.#tokens.set(id, { ...token, expiresAt: 0 });
    return true;
  }

  /** Every token issued so far, valid or not (tests check none leaks). */
  issued(): string[] {
    return [...this.#tokens.keys()];
  }

  /** Makes every token issued so far to `username` expired. */
  expireOf(username: string): void {
    for (const [id, token] of this.#tokens) {
      if (token.username === username) this.#tokens.set(id, { ...token, expiresAt: 0 });
    }
  }

  /** Makes every token issued so far expired. */
  expireAll(): void {
    for (const [id, token] of this.#tokens) this.#tokens.set(id, { ...token, expiresAt: 0 });
  }
}
