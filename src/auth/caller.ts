import type { Scope } from './scopes.ts';
import type { Session } from './session-store.ts';

/** How a caller proved who they are (`via` in audit events, `AuthMethod` in the schema). */
export type CallerVia = 'session' | 'jwt' | 'token' | 'anonymous';

/** Who is calling: resolved once per HTTP request, before any operation runs. */
export interface Caller {
  /** vRA user name, JWT name, token name; `anonymous` for nobody. */
  readonly name: string;
  readonly via: CallerVia;
  readonly scopes: ReadonlySet<Scope>;
  /** The vRA tenant of a session. */
  readonly tenant?: string;
  /** Epoch ms when the session or JWT stops being accepted. */
  readonly expiresAt?: number;
  /** The session and its cookie value, for a signed-in person. */
  readonly session?: { readonly cookie: string; readonly state: Session };
}

export function anonymous(scopes: ReadonlySet<Scope>): Caller {
  return { name: 'anonymous', via: 'anonymous', scopes };
}
