import type { VirtualServerResolvers } from '../../generated/graphql.ts';

export const VirtualServer: VirtualServerResolvers = {
  id: (server) => server.virtualServerId,
  // The manager spells protocols in lower case (`http`); the schema in upper case.
  protocol: (server) => server.protocol.toUpperCase(),
};
