import type { ServiceResolvers } from '../../generated/graphql.ts';

export const Service: ServiceResolvers = {
  id: (service) => service.objectId,
};
