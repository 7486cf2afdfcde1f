import { pathSegments } from '../../recorded-request.ts';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import {
  sendEmpty,
  sendJson,
  sendText,
  type RecordedRequest,
  type SimHandler,
} from '../../sim-server.ts';
import { registerBodyProblem, type CatalogState, type ProviderCatalogItemBody } from './catalog.ts';
import type { ConsumerState } from './consumer.ts';
import { consumerCall } from './consumer-routes.ts';
import { originOf, parseBody, sendList, sendsJson } from './json-exchange.ts';
import type { TokenStore } from './identity.ts';
import { invalidArgument, vraCodes, vraErrorBody } from './vra-errors.ts';
import {
  sendGuardedAnswer,
  type GuardedAnswer,
  type RedirectStatus,
} from '../../guarded-answer.ts';

export type RegisterStatus = 200 | 201 | 204;

export interface VraRouteDeps {
  credentials: { username: string; password: string; tenant: string };
  /** More accounts of the tenant that may log in. */
  users?: ReadonlyArray<{ username: string; password: string }>;
  catalog: CatalogState;
  /** Entitlements, templates, requests and resources of the consumer API. */
  consumer: ConsumerState;
  tokens: TokenStore;
  registerStatus: () => RegisterStatus;
  /** How a request without `Authorization` is answered, but the login's (default '404': as the routes do). */
  unauthenticated?: GuardedAnswer;
  redirectStatus?: RedirectStatus;
}

const providerFields = ['id', 'name', 'providerTypeId', '@type'];
const itemFields = [
  'id',
  'name',
  'status',
  'iconId',
  'catalogItemTypeRef/id',
  'outputResourceTypeRef/id',
  'providerBinding/bindingId',
  'providerBinding/providerRef/id',
  'organization/subtenantRef',
];

function acceptsJson(headers: IncomingHttpHeaders): boolean {
  return (headers.accept ?? '').toLowerCase().includes('application/json');
}

/** The vRA 7 identity and catalog endpoints the gateway uses, as strict as the real ones. */
export function createVraRoutes(deps: VraRouteDeps): SimHandler {
  const { catalog, tokens } = deps;

  const bearerOf = (headers: IncomingHttpHeaders): string | undefined =>
    /^Bearer (\S+)$/.exec(headers.authorization ?? '')?.[1];
  const bearerOk = (headers: IncomingHttpHeaders): boolean => {
    const token = bearerOf(headers);
    return token !== undefined && tokens.isValid(token);
  };

  const login = (request: RecordedRequest, response: ServerResponse): void => {
    if (!acceptsJson(request.headers))
      return sendText(response, 406, 'Not Acceptable', 'text/plain');
    if (!sendsJson(request.headers)) {
      return sendJson(response, 415, invalidArgument('Content-Type must be application/json.'));
    }
    const parsed = parseBody(request);
    const body = parsed.ok ? parsed.value : undefined;
    if (typeof body !== 'object' || body === null) {
      return sendJson(response, 400, invalidArgument('The provided resource was null.'));
    }
    const { username, password, tenant } = body as Record<string, unknown>;
    if (
      typeof username !== 'string' ||
      typeof password !== 'string' ||
      typeof tenant !== 'string'
    ) {
      return sendJson(
        response,
        400,
        invalidArgument('username, password and tenant are required.'),
      );
    }
    const expected = deps.credentials;
    const accounts = [expected, ...(deps.users ?? [])];
    if (
      !accounts.some((a) => a.username === username && a.password === password) ||
      tenant !== expected.tenant
    ) {
      const message = `Unable to authenticate user ${username} in tenant ${tenant}.`;
      return sendJson(
        response,
        401,
        vraErrorBody(
          vraCodes.authenticationFailed,
          message,
          `${vraCodes.authenticationFailed}-${message}`,
        ),
      );
    }
    const token = tokens.issue(username, tenant);
    sendJson(response, 200, { expires: token.expires, id: token.id, tenant });
  };

  const register = (
    request: RecordedRequest,
    response: ServerResponse,
    providerId: string,
    bindingId: string,
  ): void => {
    if (!sendsJson(request.headers)) {
      return sendJson(response, 415, invalidArgument('Content-Type must be application/json.'));
    }
    const provider = catalog.provider(providerId);
    if (provider === undefined) {
      const message = `Unable to find the specified provider in the service catalog: ${providerId}.`;
      return sendJson(response, 404, vraErrorBody(vraCodes.notFound, message));
    }
    const parsed = parseBody(request);
    if (!parsed.ok) return sendJson(response, 400, invalidArgument('Malformed JSON request body.'));
    const problem = registerBodyProblem(parsed.value, bindingId);
    if (problem !== undefined) return sendJson(response, 400, invalidArgument(problem));
    const { item } = catalog.register(provider, parsed.value as ProviderCatalogItemBody);
    const status = deps.registerStatus();
    if (status === 200) return sendJson(response, 200, item);
    if (status === 201) {
      return sendEmpty(response, 201, {
        location: `${originOf(request)}/catalog-service/api/catalogItems/${encodeURIComponent(item.id)}`,
      });
    }
    sendEmpty(response, 204);
  };

  const catalogCall = (request: RecordedRequest, response: ServerResponse, s: string[]): void => {
    // s = ['catalog-service', 'api', ...]
    const rest = s.slice(2);
    const [a, b, c, d, e] = rest;
    if (a === 'consumer') {
      const user = tokens.userOf(bearerOf(request.headers) ?? '') ?? '';
      return consumerCall(deps.consumer, user, request, response, rest.slice(1));
    }
    if (a === 'providers' && rest.length === 1) {
      if (request.method !== 'GET') return sendEmpty(response, 405, { allow: 'GET' });
      return sendList(request, response, catalog.providers, providerFields);
    }
    if (a === 'providers' && b !== undefined && rest.length === 2) {
      if (request.method !== 'GET') return sendEmpty(response, 405, { allow: 'GET' });
      const provider = catalog.provider(b);
      if (provider === undefined) {
        const message = `Unable to find the specified provider in the service catalog: ${b}.`;
        return sendJson(response, 404, vraErrorBody(vraCodes.notFound, message));
      }
      return sendJson(response, 200, provider);
    }
    if (a === 'catalogItems' && rest.length === 1) {
      if (request.method !== 'GET') return sendEmpty(response, 405, { allow: 'GET' });
      return sendList(request, response, catalog.items, itemFields);
    }
    if (
      a === 'provider' &&
      b === 'providers' &&
      c !== undefined &&
      d === 'catalogItems' &&
      e !== undefined &&
      rest.length === 5
    ) {
      if (request.method !== 'PUT') return sendEmpty(response, 405, { allow: 'PUT' });
      return register(request, response, c, e);
    }
    sendJson(
      response,
      404,
      vraErrorBody(vraCodes.notFound, 'Not found.', `No resource at ${request.path}.`),
    );
  };

  const guarded = deps.unauthenticated ?? '404';
  return (request, response) => {
    const s = pathSegments(request.rawPath);
    const identity = s[0] === 'identity' && s[1] === 'api' && s[2] === 'tokens';
    if (!identity && guarded !== '404' && request.headers.authorization === undefined) {
      return sendGuardedAnswer(response, guarded, {
        host: request.headers.host,
        loginAt: '/vcac/',
        ...(deps.redirectStatus === undefined ? {} : { redirectStatus: deps.redirectStatus }),
        realm: 'vRealize Automation',
        json: vraErrorBody(vraCodes.authenticationFailed, 'Authentication required.'),
      });
    }
    if (identity) {
      if (s.length === 3 && request.method === 'POST') return login(request, response);
      if (s.length === 4 && s[3] !== undefined) {
        if (request.method === 'HEAD') return sendEmpty(response, tokens.isValid(s[3]) ? 204 : 404);
        if (request.method === 'DELETE')
          return sendEmpty(response, tokens.revoke(s[3]) ? 204 : 404);
      }
      return sendEmpty(response, 405);
    }
    if (s[0] === 'catalog-service' && s[1] === 'api') {
      if (!bearerOk(request.headers)) {
        // The real body for a missing or expired bearer is not recorded; 90135 stands in.
        return sendJson(
          response,
          401,
          vraErrorBody(
            vraCodes.authenticationFailed,
            'Unable to authenticate: the bearer token is missing, unknown or expired.',
          ),
        );
      }
      if (!acceptsJson(request.headers))
        return sendText(response, 406, 'Not Acceptable', 'text/plain');
      return catalogCall(request, response, s);
    }
    sendJson(
      response,
      404,
      vraErrorBody(vraCodes.notFound, 'Not found.', `No resource at ${request.path}.`),
    );
  };
}
