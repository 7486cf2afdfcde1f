import type { AuditActor } from '../audit/audit-log.ts';
import type { Caller } from './caller.ts';

/** What the gateway knows of one HTTP request's caller, from before any operation runs to its answer. */
export interface RequestAuth {
  caller: Caller;
  /** The request's client address (RequestInfo.clientAddress: TRUSTED_PROXIES applied); null where there is none. */
  readonly clientAddress: string | null;
  /** `Set-Cookie` values the answer carries (a session started, ended or cleared). */
  readonly setCookies: string[];
  /** Whom the audit events of this request name when not the caller (a sign-in names the person). */
  actor?: AuditActor;
}

const states = new WeakMap<Request, RequestAuth>();

export function setRequestAuth(request: Request, state: RequestAuth): void {
  states.set(request, state);
}

export function requestAuth(request: Request): RequestAuth | undefined {
  return states.get(request);
}
