import type { Resolvers } from '../../generated/graphql.ts';

/** Resolvers of the catalog domain. Placeholder. */
export const catalogResolvers: Resolvers = {};
