import type { ServerResponse } from 'node:http';
import type { AuditLog } from './audit/audit-log.ts';
import type { Authenticator } from './auth/authenticate.ts';
import { anonymous, type Caller } from './auth/caller.ts';
import { requestAuth, type RequestAuth } from './auth/request-auth.ts';
import type { SessionCookies } from './auth/session-cookie.ts';
import type { SessionStore } from './auth/session-store.ts';
import type { Scope } from './auth/scopes.ts';
import type { SignInLimiter } from './auth/sign-in-limiter.ts';
import { readUserCredentials, type UpstreamCredentials } from './credentials.ts';
import { bearerAuthorization } from './http/auth.ts';
import type { GatewayConfig } from './gateway-config.ts';
import { OperationCalls } from './http/operation-calls.ts';
import { ClientGoneError, type CallContext, type UpstreamTrail } from './http/upstream-http.ts';
import { createLoaders, type Loaders } from './loaders/index.ts';
import { requestInfo } from './request-info.ts';
import type { Clients } from './upstreams/index.ts';

/** What every resolver receives: the request's call context, the process's clients, the request's loaders. */
export interface GatewayContext {
  call: CallContext;
  clients: Clients;
  loaders: Loaders;
  config: GatewayConfig;
  /** Who is calling, their address, and the cookies the answer sets. */
  auth: RequestAuth;
  /** Sessions, sign-in limits and the audit log: one of each per process. */
  identity: IdentityServices;
  /** The upstream calls of the mutation field being run (the audit trail). */
  trail: UpstreamTrail;
}

/** The process's means of telling and recording who calls. */
export interface IdentityServices {
  authenticator: Authenticator;
  sessions: SessionStore;
  cookies: SessionCookies;
  signInLimiter: SignInLimiter;
  audit: AuditLog;
  /** SESSION_SCOPES: what a signed-in person may do. */
  sessionScopes: ReadonlySet<Scope>;
}

/** What a request's budget for upstream work allows beyond UPSTREAM_TIMEOUT_MS for the gateway's own work. */
const budgetGraceMs = 500;

/** The operations of one batched request share their reads and their share of the slots. */
const callsOfRequest = new WeakMap<Request, OperationCalls>();

function operationCalls(request: Request, limit: number): OperationCalls {
  let calls = callsOfRequest.get(request);
  if (calls === undefined) {
    calls = new OperationCalls(limit);
    callsOfRequest.set(request, calls);
  }
  return calls;
}

/**
 * A fresh context per GraphQL request: fresh loaders (so nothing loaded for
 * one user serves another), the request's abort signal, id and the user's own
 * upstream credentials when sent, and the request's own memo of upstream
 * reads and share of upstream slots.
 */
export function createContext(
  request: Request,
  clients: Clients,
  config: GatewayConfig,
  identity: IdentityServices,
  signal: AbortSignal = request.signal,
): GatewayContext {
  const info = requestInfo(request);
  const auth = requestAuth(request) ?? {
    caller: anonymous(new Set()),
    clientAddress: null,
    setCookies: [],
  };
  const credentials = withSession(
    readUserCredentials(request.headers, config.vro.authMode),
    auth.caller,
    config,
  );
  const trail: UpstreamTrail = { current: undefined };
  const { session } = auth.caller;
  const call: CallContext = {
    signal,
    requestId: info.requestId,
    credentials,
    stats: info,
    operation: operationCalls(request, config.limits.maxUpstreamCalls),
    trail,
    // One budget for all the request's upstream work, from its arrival (a subscription lifts it:
    // requestBudget), with half a second of the gateway's own work (parsing, a busy event loop)
    // that does not eat into an upstream's time: still well within UPSTREAM_TIMEOUT_MS + 1 s.
    budget: { endsAt: info.startedAt + config.upstreamTimeoutMs + budgetGraceMs },
    ...(session === undefined
      ? {}
      : {
          // vRA refused the user's own token (expired, revoked): the session ends with it.
          onCredentialRefused: (service) => {
            if (credentials[service] !== bearerAuthorization(session.state.vraToken)) return;
            auth.setCookies.push(identity.cookies.clear());
            identity.sessions.end(session.cookie).catch(() => {});
          },
        }),
  };
  return { call, clients, config, auth, identity, trail, loaders: createLoaders(clients, call) };
}

/** A signed-in person acts with their own vRA token (and on vRO too when vRO trusts vRA's tokens). */
function withSession(
  credentials: UpstreamCredentials,
  caller: Caller,
  config: GatewayConfig,
): UpstreamCredentials {
  if (caller.session === undefined) return credentials;
  const bearer = bearerAuthorization(caller.session.state.vraToken);
  return {
    ...credentials,
    vra: bearer,
    ...(config.vro.authMode === 'vra-token' ? { vro: bearer } : {}),
  };
}

/**
 * A native signal that aborts when the client goes away. Behind Node's http
 * server it follows the response's `close`: the adapter's own signal class can
 * abort without ever reading as aborted or firing its listeners.
 */
export function clientSignal(initial: { request: Request }): AbortSignal {
  const { res } = initial as { res?: ServerResponse };
  if (res === undefined) return initial.request.signal;
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new ClientGoneError());
  });
  return controller.signal;
}
