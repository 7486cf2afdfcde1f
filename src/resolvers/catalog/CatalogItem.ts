import type { CatalogItemResolvers } from '../../generated/graphql.ts';
import { loadProvider } from '../../loaders/vra.ts';

export const CatalogItem: CatalogItemResolvers = {
  description: (item) => item.description ?? null,
  iconId: (item) => item.iconId ?? null,
  catalogItemTypeId: (item) => item.catalogItemTypeRef?.id ?? null,
  outputResourceTypeId: (item) => item.outputResourceTypeRef?.id ?? null,
  organization: (item) => item.organization ?? null,
  /** Through the per-request loader: every item of a page shares one provider call. */
  provider(item, _args, { loaders }) {
    const id = item.providerBinding?.providerRef?.id;
    return id === undefined ? null : loadProvider(loaders.vra.providerById, id);
  },
};
