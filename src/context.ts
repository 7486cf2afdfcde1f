import { randomUUID } from 'node:crypto';
import type { GatewayConfig } from './gateway-config.ts';
import type { CallContext } from './http/upstream-http.ts';
import { createLoaders, type Loaders } from './loaders/index.ts';
import type { Clients } from './upstreams/index.ts';

/** What every resolver receives: the request's call context, the process's clients, the request's loaders. */
export interface GatewayContext {
  call: CallContext;
  clients: Clients;
  loaders: Loaders;
  config: GatewayConfig;
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** A fresh context per GraphQL request: fresh loaders, the request's abort signal and id. */
export function createContext(
  request: Request,
  clients: Clients,
  config: GatewayConfig,
): GatewayContext {
  const offered = request.headers.get('x-request-id');
  const call: CallContext = {
    signal: request.signal,
    requestId: offered !== null && requestIdPattern.test(offered) ? offered : randomUUID(),
  };
  return { call, clients, config, loaders: createLoaders(clients, call, config) };
}
