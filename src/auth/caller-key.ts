import type { RequestAuth } from './request-auth.ts';

/**
 * Whom a per-client cap counts against: the caller the gateway identified
 * (a token's name, a JWT's subject, a signed-in person), else the address
 * the request came from. Not the address first: behind a proxy every caller
 * comes from one.
 */
export function callerKey(auth: RequestAuth | undefined, address: string | undefined): string {
  if (auth !== undefined && auth.caller.via !== 'anonymous') {
    return `caller:${auth.caller.via}:${auth.caller.name}`;
  }
  return `address:${auth?.clientAddress ?? address ?? 'unknown'}`;
}
