import type { RemoteStore } from '../cache/remote-store.ts';
import type { GatewayConfig } from '../gateway-config.ts';
import type { CallContext, UpstreamHttp } from '../http/upstream-http.ts';
import type { UpstreamHooks } from '../http/upstream-options.ts';
import { createNsxManagers, type NsxManagers } from './nsx/network-manager.ts';
import { createVraClient, vraSeam } from './vra/v7/client.ts';
import { VraDispatch } from './vra/dispatch.ts';
import { createVra8Client } from './vra/v8/client.ts';
import { createVroClient, type VroClient } from './vro/client.ts';
import { vraServiceBearer } from './vro/service-bearer.ts';

/** One client per upstream, created once per process. */
export interface Clients {
  vro: VroClient;
  /** vRA 7 or 8, whichever answers at VRA_URL (VRA_API_GENERATION, else asked once). */
  vra: VraDispatch;
  /** NSX-v or NSX-T, found by asking (network-manager.ts). */
  nsx: NsxManagers;
}

/** `remote`: the store the replicas share (REDIS_URL); undefined: each process keeps its own state. */
export function createClients(
  config: GatewayConfig,
  hooks: UpstreamHooks = {},
  remote?: RemoteStore,
): Clients {
  // A vRA bearer vRA refuses is refused by vRO too when it is also the vRO credential
  // (VRO_AUTH_MODE=vra-token): what vRO's caches keep for it goes as well.
  const forgetInVro = async (call: CallContext): Promise<void> => {
    const bearer = call.credentials?.vra;
    if (bearer !== undefined && call.credentials?.vro === bearer)
      await vro.forgetCredential(bearer);
  };
  const vraHttp = vraSeam(config, hooks);
  const vra8 = createVra8Client(config, vraHttp, remote, forgetInVro);
  const vra = new VraDispatch({
    configured: config.vra.generation,
    serviceAccount: config.vra.username !== undefined && config.vra.password !== undefined,
    seam: vraHttp,
    v7: createVraClient(config, hooks, remote, forgetInVro, vraHttp),
    v8: vra8,
  });
  const { authMode, username, password } = config.vro;
  const vro = createVroClient(
    config,
    hooks,
    remote,
    authMode === 'vra-token' && username !== undefined && password !== undefined
      ? vraServiceBearer(vra, vra8, { username, password, tenant: config.vra.tenant ?? '' })
      : undefined,
  );
  return {
    vro,
    vra,
    nsx: createNsxManagers(config, hooks),
  };
}

/** The seams of every upstream, for readiness and metrics. */
export function upstreamSeams(clients: Clients): UpstreamHttp[] {
  return [clients.vro.seam, clients.vra.seam, clients.nsx.seam];
}

export async function closeClients(clients: Clients): Promise<void> {
  await Promise.all([clients.vro.close(), clients.vra.close(), clients.nsx.close()]);
}
