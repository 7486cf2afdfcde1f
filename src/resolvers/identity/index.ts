import type { Resolvers } from '../../generated/graphql.ts';
import { Mutation } from './Mutation.ts';
import { Query } from './Query.ts';
import { Viewer } from './Viewer.ts';

/** Resolvers of who is calling: sign-in, sign-out and the viewer. */
export const identityResolvers: Resolvers = { Query, Mutation, Viewer };
