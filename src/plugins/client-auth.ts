import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { Authenticator } from '../auth/authenticate.ts';
import { anonymous } from '../auth/caller.ts';
import { runsOnlyOpenFields } from '../auth/open-operation.ts';
import { requestAuth, setRequestAuth } from '../auth/request-auth.ts';
import type { SessionCookies } from '../auth/session-cookie.ts';
import { errorResponse, runsOperation } from './error-response.ts';

export { bearerTokenOf } from '../auth/authenticate.ts';

const nobody = anonymous(new Set());

/**
 * Tells who is calling before anything runs. A credential that is not
 * accepted (an unknown token, a bad JWT) is refused with 401; so is a request
 * without one where one is required, or with a session that has ended, unless
 * it only signs in or asks who it is. The answer carries the cookies that the
 * operation set or cleared.
 */
export function clientAuth(
  authenticator: Authenticator,
  cookies: SessionCookies,
  endpoint: string,
): Plugin {
  const refuse = (message: string, headers: Record<string, string> = {}) =>
    errorResponse(401, 'UNAUTHENTICATED', message, {
      'www-authenticate': 'Bearer realm="graphql"',
      ...headers,
    });
  return {
    async onRequest(payload) {
      const { request, url, serverContext } = payload;
      if (!runsOperation(request, url, endpoint)) return;
      const { req } = serverContext as { req?: IncomingMessage };
      const clientAddress = req?.socket.remoteAddress ?? null;
      const resolution = await authenticator.resolve(request);
      if (resolution.kind === 'caller') {
        setRequestAuth(request, { caller: resolution.caller, clientAddress, setCookies: [] });
        return;
      }
      if (resolution.kind === 'refused') {
        payload.endResponse(refuse(resolution.reason));
        return;
      }
      const ended = resolution.kind === 'session-ended';
      const setCookies = ended ? [cookies.clear()] : [];
      if (await runsOnlyOpenFields(request, url)) {
        setRequestAuth(request, { caller: nobody, clientAddress, setCookies });
        return;
      }
      if (resolution.kind === 'session-unknown') {
        // Not ended: the same cookie works again once the replicas' store answers.
        payload.endResponse(
          errorResponse(
            503,
            'UNAUTHENTICATED',
            'The session cannot be checked right now: try again shortly.',
            {
              'retry-after': '5',
            },
          ),
        );
        return;
      }
      payload.endResponse(
        ended
          ? refuse('The session has ended: sign in again.', { 'set-cookie': cookies.clear() })
          : refuse(
              'A valid gateway bearer token or identity-provider JWT is required (Authorization: Bearer <token>), or a session (signIn).',
            ),
      );
    },
    onResponse({ request, response }) {
      for (const cookie of requestAuth(request)?.setCookies ?? []) {
        response.headers.append('set-cookie', cookie);
      }
    },
  };
}
