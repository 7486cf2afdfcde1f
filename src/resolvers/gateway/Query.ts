import type { QueryResolvers } from '../../generated/graphql.ts';
import { lastProbe } from '../../plugins/readiness.ts';

export const Query: QueryResolvers = {
  /** What the process already knows: the probes' answers and /ready's last round; asks nothing. */
  appliances: (_root, _args, { clients }) => [
    { service: 'vro', generation: null, up: lastProbe(clients.vro.seam) ?? null },
    {
      service: 'vra',
      generation: clients.vra.generation ?? null,
      up: lastProbe(clients.vra.seam) ?? null,
    },
    {
      service: 'nsx',
      generation: clients.nsx.probe.known ?? null,
      up: lastProbe(clients.nsx.seam) ?? null,
    },
  ],
};
