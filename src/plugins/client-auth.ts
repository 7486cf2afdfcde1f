import { createHash, timingSafeEqual } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { errorResponse, runsOperation } from './error-response.ts';

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerTokenOf(header: string | null): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/**
 * With GATEWAY_TOKENS set, every GraphQL operation must carry
 * `Authorization: Bearer <one of them>`; otherwise 401 before anything runs.
 * Tokens are compared as SHA-256 digests in constant time, against every
 * configured token, so neither the length nor the position of a match leaks.
 */
export function clientAuth(tokens: readonly string[], endpoint: string): Plugin {
  const allowed = tokens.map(digest);
  const accepts = (header: string | null): boolean => {
    const token = bearerTokenOf(header);
    if (token === undefined) return false;
    const offered = digest(token);
    let found = false;
    for (const candidate of allowed) found = timingSafeEqual(candidate, offered) || found;
    return found;
  };
  return {
    onRequest(payload) {
      const { request, url } = payload;
      if (allowed.length === 0 || !runsOperation(request, url, endpoint)) return;
      if (accepts(request.headers.get('authorization'))) return;
      payload.endResponse(
        errorResponse(
          401,
          'UNAUTHENTICATED',
          'A valid gateway bearer token is required (Authorization: Bearer <token>).',
          {
            'www-authenticate': 'Bearer realm="graphql"',
          },
        ),
      );
    },
  };
}
