import type { EntitledCatalogItemResolvers } from '../../generated/graphql.ts';

export const EntitledCatalogItem: EntitledCatalogItemResolvers = {
  id: (item) => item.catalogItemId,
  description: (item) => item.description ?? null,
  catalogItemTypeId: (item) => item.catalogItemTypeRef?.id ?? null,
  outputResourceTypeId: (item) => item.outputResourceTypeRef?.id ?? null,
  /** The entitled organizations' business groups (subtenants), each once. */
  businessGroups(item) {
    const groups = new Map<string, { id: string; name: string | null }>();
    for (const organization of item.entitledOrganizations ?? []) {
      const id = organization.subtenantRef;
      if (typeof id === 'string' && id !== '' && !groups.has(id)) {
        groups.set(id, { id, name: organization.subtenantLabel ?? null });
      }
    }
    return [...groups.values()];
  },
  /** Read on demand through the per-request loader: once per item per GraphQL request. */
  requestTemplate: (item, _args, { loaders }) =>
    loaders.vra.requestTemplate.load(item.catalogItemId),
};
