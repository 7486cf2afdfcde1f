import { stringifySetCookie } from 'cookie';
import { sessionCookieName } from './authenticate.ts';

/**
 * The `gateway_session` cookie: HttpOnly (no script reads it), SameSite=Strict
 * (no other site's page sends it), Path=/, and Secure unless the gateway
 * listens on loopback or SESSION_COOKIE_SECURE=false.
 */
export class SessionCookies {
  readonly #secure: boolean;

  constructor(secure: boolean) {
    this.#secure = secure;
  }

  issue(value: string, expiresAt: number): string {
    return this.#cookie(value, new Date(expiresAt));
  }

  /** Tells the browser to forget the cookie. */
  clear(): string {
    return this.#cookie('', new Date(0));
  }

  #cookie(value: string, expires: Date): string {
    return stringifySetCookie({
      name: sessionCookieName,
      value,
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      secure: this.#secure,
      expires,
    });
  }
}
