import type { Resolvers } from '../../generated/graphql.ts';
import { CatalogItem } from './CatalogItem.ts';
import { CatalogRequest } from './CatalogRequest.ts';
import { CatalogResource, ResourceAction } from './CatalogResource.ts';
import { EntitledCatalogItem } from './EntitledCatalogItem.ts';
import { Mutation } from './Mutation.ts';
import { Query } from './Query.ts';
import { Subscription } from './Subscription.ts';

/** Resolvers of the catalog domain (vRA). */
export const catalogResolvers: Resolvers = {
  Query,
  Mutation,
  Subscription,
  CatalogItem,
  EntitledCatalogItem,
  CatalogRequest,
  CatalogResource,
  ResourceAction,
};
