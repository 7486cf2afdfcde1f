import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';

export interface JwtSettings {
  jwksUrl: URL;
  issuer: string;
  audience: string;
}

/** A verified JWT caller. */
export interface JwtIdentity {
  name: string;
  scopes: string[];
  /** Epoch ms, from `exp`. */
  expiresAt: number | undefined;
}

export type JwtRejectedReason =
  'malformed' | 'signature' | 'claims' | 'expired' | 'algorithm' | 'keys-unavailable';

/** Thrown for any token that is not accepted; `message` says why in one sentence without repeating the token. */
export class JwtRejectedError extends Error {
  readonly reason: JwtRejectedReason;

  constructor(reason: JwtRejectedReason, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'JwtRejectedError';
    this.reason = reason;
  }
}

// Asymmetric only: never `none` nor HS*, so a token HMAC-signed with the public key is refused.
const algorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

// The signature segment may be empty (`alg: none`): such a token still looks like a JWT, and is
// then refused by the verifier rather than taken for some other kind of token.
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Three base64url segments, the first a JSON object with `alg`. */
export function looksLikeJwt(token: string): boolean {
  if (!compactJws.test(token)) return false;
  try {
    return typeof decodeProtectedHeader(token).alg === 'string';
  } catch {
    return false;
  }
}

/** After a failed fetch of the JWKS, how long it is not asked again: about once a minute at most. */
const jwksRetryAfterFailureMs = 60_000;

export function createJwtVerifier(
  settings: JwtSettings,
  options?: { fetchTimeoutMs?: number; retryAfterFailureMs?: number },
): { verify(token: string): Promise<JwtIdentity> } {
  const retryAfterFailureMs = options?.retryAfterFailureMs ?? jwksRetryAfterFailureMs;
  const jwks = createRemoteJWKSet(settings.jwksUrl, {
    timeoutDuration: options?.fetchTimeoutMs ?? 5_000,
    // An unknown kid refetches the set, but at most once a minute.
    cooldownDuration: 60_000,
    cacheMaxAge: 600_000,
  });
  // jose fetches again on every call after a failed fetch (and for every unknown kid):
  // after a failure, this verifier uses only the keys it already holds until the back-off ends.
  let failedAt: number | undefined;
  let held: JWTVerifyGetKey | undefined;
  const unavailable = (cause?: unknown): JwtRejectedError =>
    new JwtRejectedError(
      'keys-unavailable',
      'The signing keys could not be fetched or used.',
      cause === undefined ? undefined : { cause },
    );
  const keys: JWTVerifyGetKey = async (header, token) => {
    // Date.now, as jose's own cache and cool-down count time.
    if (failedAt !== undefined && Date.now() < failedAt + retryAfterFailureMs) {
      if (held === undefined || !jwks.fresh) throw unavailable();
      return held(header, token);
    }
    try {
      const key = await jwks(header, token);
      // Cooling down: a fetch succeeded within the minute, so after any failure (which cannot cool down).
      if (jwks.coolingDown) failedAt = undefined;
      return key;
    } catch (error) {
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys
      ) {
        throw error;
      }
      failedAt = Date.now();
      const known = jwks.fresh ? jwks.jwks() : undefined;
      held = known === undefined ? undefined : createLocalJWKSet(known);
      throw unavailable(error);
    }
  };

  return {
    async verify(token) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          algorithms,
          issuer: settings.issuer,
          audience: settings.audience,
          requiredClaims: ['exp'],
          // 30 s at most, for clock skew on `exp` and `nbf`.
          clockTolerance: 30,
        }));
      } catch (error) {
        throw rejection(error);
      }
      return identity(payload);
    },
  };
}

function identity(payload: JWTPayload): JwtIdentity {
  const { preferred_username: preferred, sub, scope, exp } = payload;
  const name = typeof preferred === 'string' && preferred !== '' ? preferred : sub;
  if (typeof name !== 'string' || name === '') {
    throw new JwtRejectedError('claims', 'The token names no caller (preferred_username or sub).');
  }
  if (scope !== undefined && typeof scope !== 'string') {
    throw new JwtRejectedError('claims', 'The token\'s "scope" claim is not a string.');
  }
  return {
    name,
    scopes: scope?.split(' ').filter((s) => s !== '') ?? [],
    expiresAt: exp === undefined ? undefined : exp * 1000,
  };
}

function rejection(error: unknown): unknown {
  if (error instanceof JwtRejectedError) return error;
  const cause = { cause: error };
  if (error instanceof errors.JWTExpired) {
    return new JwtRejectedError('expired', 'The token has expired.', cause);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new JwtRejectedError(
      'claims',
      `The token's "${error.claim}" claim is not accepted.`,
      cause,
    );
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return new JwtRejectedError('algorithm', "The token's algorithm is not accepted.", cause);
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new JwtRejectedError(
      'signature',
      'The token is not signed by a known key for its algorithm.',
      cause,
    );
  }
  if (error instanceof errors.JOSEError) {
    return new JwtRejectedError('malformed', 'The token is not a well-formed JWT.', cause);
  }
  return error;
}
