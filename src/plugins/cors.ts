import type { Plugin } from 'graphql-yoga';

const allowedMethods = 'GET, POST, PUT, DELETE';
/** What a preflight may ask for: header names only (RFC 9110 tokens). */
const headerList = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * CORS for the front-ends of CORS_ORIGINS, and for no other origin. A
 * preflight from a listed origin is allowed (credentials included); any other
 * origin's preflight gets no `Access-Control-Allow-*` header at all, so its
 * browser neither sends the request nor lets its page read an answer. The
 * gateway's own pages (GraphiQL) need no CORS. Yoga's own CORS, which allows
 * every origin with credentials, is turned off in `server.ts`.
 */
export function cors(allowedOrigins: ReadonlySet<string>): Plugin {
  const allowedOrigin = (request: Request): string | undefined => {
    const origin = request.headers.get('origin');
    return origin !== null && allowedOrigins.has(origin) ? origin : undefined;
  };
  return {
    onRequest(payload) {
      const { request } = payload;
      if (request.method !== 'OPTIONS') return;
      const headers: Record<string, string> = { 'content-length': '0' };
      if (allowedOrigin(request) !== undefined) {
        headers['access-control-allow-methods'] = allowedMethods;
        const asked = request.headers.get('access-control-request-headers');
        if (asked !== null && headerList.test(asked.trim())) {
          headers['access-control-allow-headers'] = asked.trim();
        }
        headers['access-control-max-age'] = '600';
      }
      payload.endResponse(new Response(null, { status: 204, headers }));
    },
    onResponse({ request, response }) {
      if (request.headers.get('origin') === null) return;
      response.headers.append('vary', 'Origin');
      const origin = allowedOrigin(request);
      if (origin === undefined) return;
      response.headers.set('access-control-allow-origin', origin);
      response.headers.set('access-control-allow-credentials', 'true');
      if (request.method !== 'OPTIONS') {
        response.headers.set('access-control-expose-headers', 'X-Request-Id');
      }
    },
  };
}
