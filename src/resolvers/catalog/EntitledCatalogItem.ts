import type { EntitledCatalogItemResolvers } from '../../generated/graphql.ts';
import { requestForm } from '../../upstreams/vra/request-form.ts';

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
  /** The same template read, as a form: one shape on both generations. */
  form: async (item, _args, { loaders }) => {
    const fields = requestForm(await loaders.vra.requestTemplate.load(item.catalogItemId));
    return fields === null ? null : { fields };
  },
};
