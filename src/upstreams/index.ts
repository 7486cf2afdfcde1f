import type { GatewayConfig } from '../gateway-config.ts';
import { createNsxClient, type NsxClient } from './nsx/client.ts';
import { createVraClient, type VraClient } from './vra/client.ts';
import { createVroClient, type VroClient } from './vro/client.ts';

/** One client per upstream, created once per process. */
export interface Clients {
  vro: VroClient;
  vra: VraClient;
  nsx: NsxClient;
}

export function createClients(config: GatewayConfig): Clients {
  return {
    vro: createVroClient(config),
    vra: createVraClient(config),
    nsx: createNsxClient(config),
  };
}

export async function closeClients(clients: Clients): Promise<void> {
  await Promise.all([clients.vro.close(), clients.vra.close(), clients.nsx.close()]);
}
