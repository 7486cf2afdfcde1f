import DataLoader from 'dataloader';
import type { CallContext } from '../http/upstream-http.ts';
import type { NsxClient } from '../upstreams/nsx/client.ts';
import type { FirewallConfigRecord, IpSetRecord, ServiceRecord } from '../upstreams/nsx/wire.ts';

/**
 * The manager has no batch reads: each loader de-duplicates one request's
 * reads of the same key and lets a mutation prime what it read back.
 */
export interface NsxLoaders {
  /** `GET /api/2.0/services/ipset/{id}`; an unknown id rejects with the upstream 404. */
  ipSetById: DataLoader<string, IpSetRecord>;
  /** `GET /api/2.0/services/ipset/scope/{scopeId}`; primes ipSetById. */
  ipSetsByScope: DataLoader<string, IpSetRecord[]>;
  /** `GET /api/2.0/services/application/{id}` */
  serviceById: DataLoader<string, ServiceRecord>;
  /** `GET /api/2.0/services/application/scope/{scopeId}`; primes serviceById. */
  servicesByScope: DataLoader<string, ServiceRecord[]>;
  /** `GET /api/2.0/app/firewall/{portGroupId}/config` with its generation number. */
  firewallByPortGroup: DataLoader<string, FirewallConfigRecord>;
}

export function createNsxLoaders(client: NsxClient, call: CallContext): NsxLoaders {
  const ipSetById = new DataLoader<string, IpSetRecord>((ids) =>
    settle(ids.map((id) => client.getIpSet(call, id))),
  );
  const serviceById = new DataLoader<string, ServiceRecord>((ids) =>
    settle(ids.map((id) => client.getService(call, id))),
  );
  return {
    ipSetById,
    serviceById,
    ipSetsByScope: new DataLoader((scopes) =>
      settle(
        scopes.map(async (scope) => {
          const list = await client.listIpSets(call, scope);
          for (const ipSet of list) ipSetById.prime(ipSet.objectId, ipSet);
          return list;
        }),
      ),
    ),
    servicesByScope: new DataLoader((scopes) =>
      settle(
        scopes.map(async (scope) => {
          const list = await client.listServices(call, scope);
          for (const service of list) serviceById.prime(service.objectId, service);
          return list;
        }),
      ),
    ),
    firewallByPortGroup: new DataLoader((ids) =>
      settle(ids.map((id) => client.getFirewall(call, id))),
    ),
  };
}

/** Results in key order, an Error in place of each failed key. */
function settle<T>(loads: Array<Promise<T>>): Promise<Array<T | Error>> {
  return Promise.all(
    loads.map((load) =>
      load.catch((error: unknown) =>
        error instanceof Error ? error : new Error('The load failed.'),
      ),
    ),
  );
}
