import type { Caller } from './caller.ts';

/** What the gateway knows of one HTTP request's caller, from before any operation runs to its answer. */
export interface RequestAuth {
  /** Fixed before any operation runs: a sign-in in the request changes no field's rights. */
  readonly caller: Caller;
  /** The request's client address (RequestInfo.clientAddress: TRUSTED_PROXIES applied); null where there is none. */
  readonly clientAddress: string | null;
  /** `Set-Cookie` values the answer carries (a session started, ended or cleared). */
  readonly setCookies: string[];
  /**
   * The session cookie the request carried when it did not come to a live
   * session (ended, or not checkable now): `signOut` still ends it everywhere.
   */
  readonly unresolvedSession?: string;
}

const states = new WeakMap<Request, RequestAuth>();

export function setRequestAuth(request: Request, state: RequestAuth): void {
  states.set(request, state);
}

export function requestAuth(request: Request): RequestAuth | undefined {
  return states.get(request);
}

/**
 * A request the gateway makes from a client's (an operation of an SSE single
 * connection) is that client's: its credential was resolved once, for the
 * client's own request, and is not resolved again.
 */
export function carryRequestAuth(from: Request, to: Request): void {
  const state = states.get(from);
  if (state !== undefined) states.set(to, state);
}
