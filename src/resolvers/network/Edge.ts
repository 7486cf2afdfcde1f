import type { EdgeResolvers } from '../../generated/graphql.ts';

export const Edge: EdgeResolvers = {
  type: (edge) => edge.edgeType,
  virtualServers: (edge, _args, { loaders }) => loaders.nsx.virtualServersByEdge.load(edge.id),
};
