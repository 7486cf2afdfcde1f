import type { Resolvers } from '../../generated/graphql.ts';

/** Resolvers of the network domain. Placeholder. */
export const networkResolvers: Resolvers = {};
