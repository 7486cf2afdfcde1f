import type { Plugin } from 'graphql-yoga';

/**
 * Only the exact endpoint path serves GraphQL. Yoga also routes `/graphql/`,
 * `/anything/graphql` and any URL that merely ends in `/graphql` (query
 * string included) to GraphQL; the checks keyed on the path (client tokens,
 * CSRF, body limits) would not see those, so they answer 404 here.
 */
export function canonicalEndpoint(endpoint: string): Plugin {
  return {
    onRequest(payload) {
      const { request, url } = payload;
      if (url.pathname === endpoint) return;
      const routedByYoga =
        request.url.endsWith(endpoint) ||
        request.url.endsWith(`${endpoint}/`) ||
        url.pathname.endsWith(endpoint) ||
        url.pathname.endsWith(`${endpoint}/`);
      if (routedByYoga) payload.endResponse(new Response(null, { status: 404 }));
    },
  };
}
