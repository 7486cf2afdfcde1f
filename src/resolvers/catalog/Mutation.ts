import type { MutationResolvers } from '../../generated/graphql.ts';
import type { GatewayContext } from '../../context.ts';
import { loadProvider } from '../../loaders/vra.ts';
import {
  checkActionRequest,
  checkBlueprintRegistration,
  checkItemRequest,
  checkRegistration,
} from '../../inputs/catalog.ts';
import { withFormValues } from '../../inputs/request-values.ts';
import { editTemplate } from '../../upstreams/vra/request-body.ts';
import type {
  WireCatalogItem,
  WireCatalogRequest,
  WireProviderCatalogItem,
} from '../../upstreams/vra/wire.ts';

async function register(
  { clients, call, loaders }: GatewayContext,
  providerId: string,
  item: WireProviderCatalogItem,
): Promise<{ catalogItem: WireCatalogItem }> {
  const catalogItem = await clients.vra.registerCatalogItem(call, providerId, item);
  loaders.vra.catalogItemPage.clearAll();
  return { catalogItem };
}

/** The new request is what later reads in this operation see; request lists are stale. */
function submitted(
  { loaders }: GatewayContext,
  request: WireCatalogRequest,
): { request: WireCatalogRequest } {
  loaders.vra.catalogRequest.clear(request.id).prime(request.id, request);
  loaders.vra.catalogRequestPage.clearAll();
  return { request };
}

export const Mutation: MutationResolvers = {
  /**
   * Reads the item's template, merges `data` into it, sets the business group
   * (default: the template's), description and reasons, and submits it.
   */
  async requestCatalogItem(_root, { input }, context) {
    const { catalogItemId, edits, values } = checkItemRequest(input);
    const { clients, call, loaders } = context;
    const template = await loaders.vra.requestTemplate.load(catalogItemId);
    const body = withFormValues(template, editTemplate(template, edits), values);
    const request = await clients.vra.submitCatalogItemRequest(call, catalogItemId, body);
    return submitted(context, request);
  },

  /** The same for an action on a resource (Power Off, Reboot, Destroy, ...). */
  async requestResourceAction(_root, { input }, context) {
    const { resourceId, actionId, edits } = checkActionRequest(input);
    const { clients, call, loaders } = context;
    const template = await clients.vra.getResourceActionTemplate(call, resourceId, actionId);
    const body = editTemplate(template, edits);
    const request = await clients.vra.submitResourceActionRequest(call, resourceId, actionId, body);
    loaders.vra.resource.clear(resourceId);
    return submitted(context, request);
  },

  registerCatalogItem(_root, { input }, context) {
    const { providerId, item } = checkRegistration(input);
    return register(context, providerId, item);
  },

  /**
   * vRA 7: registering a provider catalog item with the infrastructure
   * provider (docs/upstreams.md, vRA); vRA 8: releasing a blueprint version
   * that the project's content source carries into the catalog (Vra8Client).
   */
  async publishBlueprint(_root, { input }, context) {
    const item = checkBlueprintRegistration(input);
    const { clients, call, loaders } = context;
    const given = input.providerName ?? undefined;
    const catalogItem = await clients.vra.publishBlueprint(call, {
      item,
      provider: {
        name: given ?? context.config.vra.iaasProviderName,
        configured: given === undefined,
      },
      async findProvider(name) {
        const provider = await loadProvider(loaders.vra.providerByName, name);
        if (provider !== null) loaders.vra.providerById.prime(provider.id, provider);
        return provider;
      },
    });
    loaders.vra.catalogItemPage.clearAll();
    return { catalogItem };
  },
};
