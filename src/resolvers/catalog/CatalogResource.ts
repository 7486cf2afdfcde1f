import type { CatalogResourceResolvers, ResourceActionResolvers } from '../../generated/graphql.ts';
import { upstreamJson } from '../../json-bounds.ts';
import { plainEntries } from '../../upstreams/vra/literals.ts';

export const CatalogResource: CatalogResourceResolvers = {
  resourceType: (resource) => resource.resourceTypeRef?.id ?? null,
  status: (resource) => resource.status ?? null,
  description: (resource) => resource.description ?? null,
  /** vRA's typed literals as one plain object. */
  data: (resource) =>
    resource.resourceData === undefined || resource.resourceData === null
      ? null
      : upstreamJson('vra', plainEntries(resource.resourceData.entries)),
  /** Only `ACTION` operations can be requested (`EXTENSION`s are console links and the like). */
  actions: (resource) =>
    (resource.operations ?? []).filter(
      (operation) =>
        operation.type === undefined || operation.type === null || operation.type === 'ACTION',
    ),
};

export const ResourceAction: ResourceActionResolvers = {
  description: (action) => action.description ?? null,
};
