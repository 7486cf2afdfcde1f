import { createHash } from 'node:crypto';
import { BadUserInputError, type UpstreamService } from './errors.ts';

/** How vRO authenticates: its own directory (Basic) or through vRA (a vRA bearer token). */
export type VroAuthMode = 'basic' | 'vra-token';

/** `Authorization` values a client sent for the upstreams, so that they apply that user's permissions. */
export type UpstreamCredentials = Partial<Record<UpstreamService, string>>;

/** The request headers that carry a user's own upstream credentials. */
export const credentialHeaders: Record<UpstreamService, string> = {
  vro: 'x-vro-authorization',
  vra: 'x-vra-authorization',
  nsx: 'x-nsx-authorization',
};

const schemes: Record<UpstreamService, readonly string[]> = {
  vro: ['Basic', 'Bearer'],
  vra: ['Bearer'],
  nsx: ['Basic'],
};

const headerValue = /^(Basic|Bearer) [A-Za-z0-9._~+/=-]{1,8192}$/;

/**
 * Reads the per-user credential headers. vRA takes a vRA bearer token; vRO a
 * Basic value or, when it authenticates through vRA (VRO_AUTH_MODE=vra-token),
 * the same vRA bearer token when no vRO header is sent; NSX a Basic value.
 */
export function readUserCredentials(
  headers: Headers,
  vroAuthMode: VroAuthMode,
): UpstreamCredentials {
  const credentials: UpstreamCredentials = {};
  for (const service of ['vro', 'vra', 'nsx'] as const) {
    const name = credentialHeaders[service];
    const value = headers.get(name)?.trim();
    if (value === undefined || value === '') continue;
    const scheme = headerValue.exec(value)?.[1];
    if (scheme === undefined || !schemes[service].includes(scheme)) {
      throw new BadUserInputError(
        `The ${name} header must be \`${schemes[service].join(' <credentials>` or `')} <credentials>\`.`,
      );
    }
    credentials[service] = value;
  }
  if (
    credentials.vro === undefined &&
    vroAuthMode === 'vra-token' &&
    credentials.vra !== undefined
  ) {
    credentials.vro = credentials.vra;
  }
  return credentials;
}

/** How many credentials' keys are kept; the oldest goes first. */
const maxRecentKeys = 1024;
const recentKeys = new Map<string, string>();

/**
 * A key that tells credentials apart without holding them: `service` for the
 * gateway's own account, else a digest of the user's value. Every cache that
 * outlives a request is keyed with it, so one user's data never serves another.
 */
export function credentialKey(authorization: string | undefined): string {
  if (authorization === undefined) return 'service';
  let key = recentKeys.get(authorization);
  if (key === undefined) {
    key = `user:${createHash('sha256').update(authorization, 'utf8').digest('hex').slice(0, 32)}`;
    // hashed once per credential, not once per call: the recent ones are kept
    if (recentKeys.size >= maxRecentKeys) {
      const oldest = recentKeys.keys().next();
      if (oldest.done !== true) recentKeys.delete(oldest.value);
    }
    recentKeys.set(authorization, key);
  }
  return key;
}
