import type { QueryResolvers } from '../../generated/graphql.ts';

export const Query: QueryResolvers = {
  viewer: (_source, _args, { auth }) => (auth.caller.via === 'anonymous' ? null : auth.caller),
};
