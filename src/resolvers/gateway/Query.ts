import type { UpstreamHttp } from '../../http/upstream-http.ts';
import type { QueryResolvers } from '../../generated/graphql.ts';
import { lastProbe } from '../../plugins/readiness.ts';

/** Whether the appliance's last call (or /ready's last probe) reached it; null before either. */
const up = (seam: UpstreamHttp): boolean | null => seam.lastReached ?? lastProbe(seam) ?? null;

export const Query: QueryResolvers = {
  /** What the process already knows: the probes' answers and the last calls' outcomes; asks nothing. */
  appliances: (_root, _args, { clients }) => [
    { service: 'vro', generation: null, up: up(clients.vro.seam) },
    { service: 'vra', generation: clients.vra.generation ?? null, up: up(clients.vra.seam) },
    { service: 'nsx', generation: clients.nsx.probe.known ?? null, up: up(clients.nsx.seam) },
  ],
};
