import type { ServerResponse } from 'node:http';
import { readUserCredentials } from './credentials.ts';
import type { GatewayConfig } from './gateway-config.ts';
import { OperationCalls } from './http/operation-calls.ts';
import type { CallContext } from './http/upstream-http.ts';
import { createLoaders, type Loaders } from './loaders/index.ts';
import { requestInfo } from './request-info.ts';
import type { Clients } from './upstreams/index.ts';

/** What every resolver receives: the request's call context, the process's clients, the request's loaders. */
export interface GatewayContext {
  call: CallContext;
  clients: Clients;
  loaders: Loaders;
  config: GatewayConfig;
}

/** The operations of one batched request share their reads and their share of the slots. */
const callsOfRequest = new WeakMap<Request, OperationCalls>();

function operationCalls(request: Request): OperationCalls {
  let calls = callsOfRequest.get(request);
  if (calls === undefined) {
    calls = new OperationCalls();
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
  signal: AbortSignal = request.signal,
): GatewayContext {
  const info = requestInfo(request);
  const credentials = readUserCredentials(request.headers, config.vro.authMode);
  const call: CallContext = {
    signal,
    requestId: info.requestId,
    credentials,
    stats: info,
    operation: operationCalls(request),
  };
  return { call, clients, config, loaders: createLoaders(clients, call) };
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
    if (!res.writableFinished) controller.abort(new Error('The client went away.'));
  });
  return controller.signal;
}
