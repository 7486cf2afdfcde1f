import type { Plugin } from 'graphql-yoga';
import { errorResponse, runsOperation } from './error-response.ts';
import { requestOrigin } from './request-origin.ts';

/** Headers that a browser cannot send cross-site without a CORS preflight. */
const csrfHeaders = ['x-graphql-csrf', 'x-graphql-yoga-csrf', 'apollo-require-preflight'];
const simpleContentTypes = [
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'text/plain',
];

/**
 * No page of another origin runs an operation through a visitor's browser
 * (which lends it the gateway's service accounts and the visitor's network
 * position), unless CORS_ORIGINS lists that origin:
 * - an operation from a foreign page is refused (403) before it is parsed, so a
 *   mutation in a form post or a `fetch` the browser sent without a preflight
 *   never runs;
 * - a form-like POST (multipart, url-encoded, text/plain) that names no origin
 *   at all must carry a CSRF header: a browser old enough to send no `Origin`
 *   could otherwise post it from any page.
 * The gateway's own pages and non-browser clients need nothing more; GET never
 * runs a mutation (yoga answers 405).
 */
export function csrf(allowedOrigins: ReadonlySet<string>, endpoint: string): Plugin {
  return {
    onRequest(payload) {
      const { request, url } = payload;
      if (!runsOperation(request, url, endpoint)) return;
      const from = requestOrigin(request, url, allowedOrigins);
      if (from === 'foreign') {
        const origin = request.headers.get('origin');
        payload.endResponse(
          errorResponse(
            403,
            'FORBIDDEN',
            `${origin === null ? 'Another site' : `The page at ${origin}`} may not use this gateway (CORS_ORIGINS does not list it).`,
          ),
        );
        return;
      }
      if (from !== 'none' || request.method !== 'POST') return;
      const contentType = (request.headers.get('content-type') ?? '').toLowerCase();
      if (!simpleContentTypes.some((t) => contentType.startsWith(t))) return;
      if (csrfHeaders.some((h) => (request.headers.get(h) ?? '') !== '')) return;
      payload.endResponse(
        errorResponse(
          400,
          'BAD_USER_INPUT',
          'Multipart and form requests must carry the header `x-graphql-csrf: 1` (CSRF prevention).',
        ),
      );
    },
  };
}
