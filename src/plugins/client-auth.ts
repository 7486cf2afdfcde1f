import { OperationTypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { sessionCookieOf, type Authenticator } from '../auth/authenticate.ts';
import { anonymous } from '../auth/caller.ts';
import { onlyOpenFields, requestedOperation } from '../auth/requested-operation.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { auditRefusedMutation } from '../audit/refused-request.ts';
import { requestInfo } from '../request-info.ts';
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
  audit: AuditLog,
  endpoint: string,
): Plugin {
  const refuse = (message: string, headers: Record<string, string> = {}) =>
    errorResponse(401, 'UNAUTHENTICATED', message, {
      'www-authenticate': 'Bearer realm="graphql"',
      ...headers,
    });
  const refusal = (why: string): Response => {
    switch (why) {
      case 'session-unknown':
        // Not ended: the same cookie works again once the replicas' store answers.
        return errorResponse(
          503,
          'UNAUTHENTICATED',
          'The session cannot be checked right now: try again shortly.',
          { 'retry-after': '5' },
        );
      case 'session-ended':
        return refuse('The session has ended: sign in again.', { 'set-cookie': cookies.clear() });
      case 'missing':
        return refuse(
          'A valid gateway bearer token or identity-provider JWT is required (Authorization: Bearer <token>), or a session (signIn).',
        );
      default:
        return refuse(why);
    }
  };
  return {
    async onRequest(payload) {
      const { request, url } = payload;
      if (!runsOperation(request, url, endpoint)) return;
      // Made by the gateway from a client's request (carryRequestAuth): resolved already.
      if (requestAuth(request) !== undefined) return;
      const { clientAddress } = requestInfo(request);
      const resolution = await authenticator.resolve(request);
      if (resolution.kind === 'caller') {
        setRequestAuth(request, { caller: resolution.caller, clientAddress, setCookies: [] });
        return;
      }
      const operation = await requestedOperation(request, url);
      const ended = resolution.kind === 'session-ended';
      if (resolution.kind !== 'refused' && onlyOpenFields(operation)) {
        const setCookies = ended ? [cookies.clear()] : [];
        const cookie = sessionCookieOf(request);
        setRequestAuth(request, {
          caller: nobody,
          clientAddress,
          setCookies,
          ...(cookie === undefined ? {} : { unresolvedSession: cookie }),
        });
        return;
      }
      // A refused change is written down too: who tried what, from where.
      if (operation?.type === OperationTypeNode.MUTATION) {
        const { requestId } = requestInfo(request);
        await auditRefusedMutation(audit, operation, { requestId, clientAddress });
      }
      payload.endResponse(
        refusal(resolution.kind === 'refused' ? resolution.reason : resolution.kind),
      );
    },
    onResponse({ request, response }) {
      for (const cookie of requestAuth(request)?.setCookies ?? []) {
        response.headers.append('set-cookie', cookie);
      }
    },
  };
}
