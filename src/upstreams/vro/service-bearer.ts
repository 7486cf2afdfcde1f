import type { CallContext } from '../../http/upstream-http.ts';
import type { VraCredential } from '../vra/tokens.ts';
import type { Vra8Client } from '../vra/v8/client.ts';
import type { VraDispatch } from '../vra/dispatch.ts';

/**
 * The vRO service account's bearer, where vRO authenticates through a vRA
 * that issues one: vRO 8 trusts the tokens of the vRA 8 it is joined to and
 * refuses Basic; vRO 7 behind vRA 7 takes Basic.
 */
export interface ServiceBearer {
  /** The bearer token; undefined: the service account goes as Basic. */
  token(call: CallContext): Promise<string | undefined>;
  /** vRO refused `rejected`: a new one (one login for every call refused with it). */
  renew(call: CallContext, rejected: string): Promise<string>;
  /** vRO refused it and no retry follows: the next call logs in again. */
  reject(rejected: string): void;
}

/**
 * VRO_AUTH_MODE=vra-token: on vRA 8 (configured, or asked of VRA_URL), the
 * vRO service account (VRO_USERNAME, VRO_PASSWORD; VRA_TENANT its CSP
 * domain) logged in at vRA 8; on vRA 7, Basic as before.
 */
export function vraServiceBearer(
  vra: VraDispatch,
  vra8: Vra8Client,
  credential: VraCredential,
): ServiceBearer {
  return {
    token: async (call) =>
      (await vra.generationOf(call)) === '8' ? vra8.bearerOf(call, credential) : undefined,
    renew: (call, rejected) => vra8.bearerOf(call, credential, rejected),
    reject: (rejected) => vra8.rejectBearer(credential, rejected),
  };
}
