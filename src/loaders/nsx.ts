import DataLoader from 'dataloader';
import type { CallContext } from '../http/upstream-http.ts';
import type { NetworkManager } from '../upstreams/nsx/network-manager.ts';
import type * as wire from '../upstreams/nsx/wire.ts';
import { settleEach } from './settle-each.ts';

/**
 * The routes named are NSX-v's; on NSX-T the same loaders read the Policy
 * API (src/upstreams/nsx/t/client.ts, docs/generations.md).
 * The manager has no batch reads: each loader de-duplicates one request's
 * reads of the same key and lets a mutation prime what it read back.
 */
export interface NsxLoaders {
  /** `GET /api/2.0/services/ipset/{id}`; an unknown id rejects with the upstream 404. */
  ipSetById: DataLoader<string, wire.IpSetRecord>;
  /** `GET /api/2.0/services/ipset/scope/{scopeId}`; primes ipSetById. */
  ipSetsByScope: DataLoader<string, wire.IpSetRecord[]>;
  /** `GET /api/2.0/services/application/{id}` */
  serviceById: DataLoader<string, wire.ServiceRecord>;
  /** `GET /api/2.0/services/application/scope/{scopeId}`; primes serviceById. */
  servicesByScope: DataLoader<string, wire.ServiceRecord[]>;
  /** `GET /api/2.0/app/firewall/{portGroupId}/config` with its generation number; null on NSX-T (none). */
  firewallByPortGroup: DataLoader<string, wire.FirewallConfigRecord | null>;
  /** `GET /api/{v}/edges`, every page; the one key is `all`. Primes edgeById. */
  edges: DataLoader<'all', wire.EdgeRecord[]>;
  /** `GET /api/{v}/edges/{id}/summary` */
  edgeById: DataLoader<string, wire.EdgeRecord>;
  /** `GET /api/{v}/edges/{edgeId}/loadbalancer/config/virtualservers` */
  virtualServersByEdge: DataLoader<string, wire.VirtualServerRecord[]>;
  /** `GET /api/4.0/firewall/globalroot-0/config`; the one key is `all`. */
  distributedFirewall: DataLoader<'all', wire.DistributedFirewallRecord>;
  /** `GET /api/4.0/firewall/globalroot-0/config/{layer}sections/{id}`, keyed `LAYER3:id`. */
  firewallSection: DataLoader<`${wire.FirewallLayerName}:${string}`, wire.FirewallSectionRecord>;
}

export function createNsxLoaders(client: NetworkManager, call: CallContext): NsxLoaders {
  const ipSetById = new DataLoader<string, wire.IpSetRecord>((ids) =>
    settleEach(ids, (id) => client.getIpSet(call, id)),
  );
  const serviceById = new DataLoader<string, wire.ServiceRecord>((ids) =>
    settleEach(ids, (id) => client.getService(call, id)),
  );
  const edgeById = new DataLoader<string, wire.EdgeRecord>((ids) =>
    settleEach(ids, (id) => client.getEdge(call, id)),
  );
  return {
    ipSetById,
    serviceById,
    ipSetsByScope: new DataLoader((scopes) =>
      settleEach(scopes, async (scope) => {
        const list = await client.listIpSets(call, scope);
        for (const ipSet of list) ipSetById.prime(ipSet.objectId, ipSet);
        return list;
      }),
    ),
    servicesByScope: new DataLoader((scopes) =>
      settleEach(scopes, async (scope) => {
        const list = await client.listServices(call, scope);
        for (const service of list) serviceById.prime(service.objectId, service);
        return list;
      }),
    ),
    firewallByPortGroup: new DataLoader((ids) =>
      settleEach(ids, (id) => client.getFirewall(call, id)),
    ),
    edges: new DataLoader((keys) =>
      settleEach(keys, async () => {
        const list = await client.listEdges(call);
        for (const edge of list) edgeById.prime(edge.id, edge);
        return list;
      }),
    ),
    edgeById,
    virtualServersByEdge: new DataLoader((ids) =>
      settleEach(ids, (id) => client.listVirtualServers(call, id)),
    ),
    distributedFirewall: new DataLoader((keys) =>
      settleEach(keys, () => client.getDistributedFirewall(call)),
    ),
    firewallSection: new DataLoader((keys) =>
      settleEach(keys, (key) => {
        const [layer, id] = splitSectionKey(key);
        return client.getSection(call, layer, id);
      }),
    ),
  };
}

/** A layer argument: an explicit `layer: null` arrives as null despite the default. */
export function orLayer3(layer: wire.FirewallLayerName | null): wire.FirewallLayerName {
  return layer ?? 'LAYER3';
}

export function sectionKey(
  layer: wire.FirewallLayerName,
  id: string,
): `${wire.FirewallLayerName}:${string}` {
  return `${layer}:${id}`;
}

function splitSectionKey(
  key: `${wire.FirewallLayerName}:${string}`,
): [wire.FirewallLayerName, string] {
  const at = key.indexOf(':');
  return [key.slice(0, at) as wire.FirewallLayerName, key.slice(at + 1)];
}
