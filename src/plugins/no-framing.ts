import type { Plugin } from 'graphql-yoga';

/**
 * No page of the gateway (GraphiQL, the portal) may be shown in a frame of
 * another site: a decoy page could otherwise lay its own buttons over
 * GraphiQL's and have a signed-in visitor run a mutation with one click.
 * Every HTML answer carries `frame-ancestors 'none'` (added to a policy the
 * page already has) and `X-Frame-Options: DENY` for browsers without CSP 2.
 */
export function noFraming(): Plugin {
  return {
    onResponse({ response }) {
      if (!(response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/html')) {
        return;
      }
      const policy = response.headers.get('content-security-policy');
      if (policy === null) {
        response.headers.set('content-security-policy', "frame-ancestors 'none'");
      } else if (!/(^|;)\s*frame-ancestors\s/i.test(policy)) {
        response.headers.set('content-security-policy', `${policy}; frame-ancestors 'none'`);
      }
      response.headers.set('x-frame-options', 'DENY');
    },
  };
}
