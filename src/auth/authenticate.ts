import { createHash, timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import { authenticates, type AuthConfig, type NamedToken } from '../config.ts';
import { anonymous, type Caller } from './caller.ts';
import { createJwtVerifier, JwtRejectedError, looksLikeJwt } from './jwt.ts';
import { allScopes, isScope, type Scope } from './scopes.ts';
import { SessionStoreUnavailableError, type SessionStore } from './session-store.ts';

export const sessionCookieName = 'gateway_session';

/** What a request's credential came to. */
export type Resolution =
  | { kind: 'caller'; caller: Caller }
  /** It carried a session cookie that no longer holds: the cookie is cleared. */
  | { kind: 'session-ended' }
  /** It carried a session cookie that cannot be checked now (the shared store is down): the cookie stays. */
  | { kind: 'session-unknown' }
  /** It needs a credential and carried none. */
  | { kind: 'missing' }
  /** It carried a credential that is not accepted; `reason` is safe to show. */
  | { kind: 'refused'; reason: string };

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerTokenOf(header: string | null): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/** The `gateway_session` cookie of a request, if it sent one. */
export function sessionCookieOf(request: Request): string | undefined {
  const header = request.headers.get('cookie');
  if (header === null) return undefined;
  const value = parseCookie(header)[sessionCookieName];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Tells who is calling: a bearer (a JWT of the identity provider or a gateway
 * token) first, then the session cookie, else nobody. Without any client
 * authentication configured, nobody holds every scope (the local default).
 */
export class Authenticator {
  readonly #tokens: ReadonlyArray<{ digest: Buffer; token: NamedToken }>;
  readonly #jwt: ReturnType<typeof createJwtVerifier> | undefined;
  readonly #sessions: SessionStore;
  readonly #sessionScopes: ReadonlySet<Scope>;
  readonly #required: boolean;

  constructor(auth: AuthConfig, sessions: SessionStore) {
    this.#tokens = auth.tokens.map((token) => ({ digest: digest(token.token), token }));
    this.#jwt = auth.jwt === undefined ? undefined : createJwtVerifier(auth.jwt);
    this.#sessions = sessions;
    this.#sessionScopes = new Set(auth.sessionScopes);
    this.#required = authenticates(auth);
  }

  /** True when a caller must show a credential to run anything but the open fields. */
  get required(): boolean {
    return this.#required;
  }

  async resolve(request: Request): Promise<Resolution> {
    const authorization = request.headers.get('authorization');
    if (this.#required && authorization !== null) return this.#bearer(authorization);
    const cookie = sessionCookieOf(request);
    if (cookie !== undefined) {
      let session;
      try {
        session = await this.#sessions.get(cookie);
      } catch (error) {
        if (error instanceof SessionStoreUnavailableError) return { kind: 'session-unknown' };
        throw error;
      }
      if (session === undefined) return { kind: 'session-ended' };
      return {
        kind: 'caller',
        caller: {
          name: session.username,
          via: 'session',
          scopes: this.#sessionScopes,
          tenant: session.tenant,
          expiresAt: session.expiresAt,
          session: { cookie, state: session },
        },
      };
    }
    if (this.#required) return { kind: 'missing' };
    return { kind: 'caller', caller: anonymous(new Set(allScopes)) };
  }

  async #bearer(authorization: string): Promise<Resolution> {
    const refused = {
      kind: 'refused',
      reason:
        'A valid gateway bearer token or identity-provider JWT is required (Authorization: Bearer <token>).',
    } as const;
    const token = bearerTokenOf(authorization);
    if (token === undefined) return refused;
    if (this.#jwt !== undefined && looksLikeJwt(token)) {
      try {
        const identity = await this.#jwt.verify(token);
        return {
          kind: 'caller',
          caller: {
            name: identity.name,
            via: 'jwt',
            scopes: new Set(identity.scopes.filter(isScope)),
            ...(identity.expiresAt === undefined ? {} : { expiresAt: identity.expiresAt }),
          },
        };
      } catch (error) {
        if (error instanceof JwtRejectedError) return { kind: 'refused', reason: error.message };
        throw error;
      }
    }
    // Compared as SHA-256 digests in constant time against every token: neither length nor position leaks.
    const offered = digest(token);
    let found: NamedToken | undefined;
    for (const candidate of this.#tokens) {
      if (timingSafeEqual(candidate.digest, offered)) found ??= candidate.token;
    }
    if (found === undefined) return refused;
    return {
      kind: 'caller',
      caller: { name: found.name, via: 'token', scopes: new Set(found.scopes) },
    };
  }
}
