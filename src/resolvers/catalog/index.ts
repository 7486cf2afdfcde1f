import type { Resolvers } from '../../generated/graphql.ts';
import { CatalogItem } from './CatalogItem.ts';
import { Mutation } from './Mutation.ts';
import { Query } from './Query.ts';

/** Resolvers of the catalog domain (vRA). */
export const catalogResolvers: Resolvers = { Query, Mutation, CatalogItem };
