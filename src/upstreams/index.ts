import type { RemoteStore } from '../cache/remote-store.ts';
import type { GatewayConfig } from '../gateway-config.ts';
import type { UpstreamHttp } from '../http/upstream-http.ts';
import type { UpstreamHooks } from '../http/upstream-options.ts';
import { createNsxClient, type NsxClient } from './nsx/client.ts';
import { createVraClient, type VraClient } from './vra/client.ts';
import { createVroClient, type VroClient } from './vro/client.ts';

/** One client per upstream, created once per process. */
export interface Clients {
  vro: VroClient;
  vra: VraClient;
  nsx: NsxClient;
}

/** `remote`: the store the replicas share (REDIS_URL); undefined: each process keeps its own state. */
export function createClients(
  config: GatewayConfig,
  hooks: UpstreamHooks = {},
  remote?: RemoteStore,
): Clients {
  return {
    vro: createVroClient(config, hooks, remote),
    vra: createVraClient(config, hooks, remote),
    nsx: createNsxClient(config, hooks),
  };
}

/** The seams of every upstream, for readiness and metrics. */
export function upstreamSeams(clients: Clients): UpstreamHttp[] {
  return [clients.vro.seam, clients.vra.seam, clients.nsx.seam];
}

export async function closeClients(clients: Clients): Promise<void> {
  await Promise.all([clients.vro.close(), clients.vra.close(), clients.nsx.close()]);
}
