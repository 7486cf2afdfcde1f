import type { Resolvers } from '../../generated/graphql.ts';

/** Resolvers of the orchestration domain. Placeholder. */
export const orchestrationResolvers: Resolvers = {};
