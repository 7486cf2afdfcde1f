import { BadUserInputError } from '../../errors.ts';
import type { MutationResolvers } from '../../generated/graphql.ts';
import type { GatewayContext } from '../../context.ts';
import { loadProvider } from '../../loaders/vra.ts';
import type { WireCatalogItem, WireProviderCatalogItem } from '../../upstreams/vra/wire.ts';
import { blueprintRegistration, registration } from './registration-input.ts';

async function register(
  { clients, call, loaders }: GatewayContext,
  providerId: string,
  item: WireProviderCatalogItem,
): Promise<{ catalogItem: WireCatalogItem }> {
  const catalogItem = await clients.vra.registerCatalogItem(call, providerId, item);
  loaders.vra.catalogItemPage.clearAll();
  return { catalogItem };
}

export const Mutation: MutationResolvers = {
  registerCatalogItem(_root, { input }, context) {
    const { providerId, item } = registration(input);
    return register(context, providerId, item);
  },

  /**
   * Publishing = registering a provider catalog item with the infrastructure
   * provider (interfaces.md section 3); a published flag on the blueprint does nothing.
   */
  async publishBlueprint(_root, { input }, context) {
    const item = blueprintRegistration(input);
    const name = input.providerName ?? context.config.vra.iaasProviderName;
    const provider = await loadProvider(context.loaders.vra.providerByName, name);
    if (provider === null) {
      const source =
        input.providerName === null || input.providerName === undefined
          ? ' (the configured VRA_IAAS_PROVIDER_NAME)'
          : '';
      throw new BadUserInputError(
        `No catalog provider is named "${name}"${source}; the blueprint was not published.`,
        'input.providerName',
      );
    }
    context.loaders.vra.providerById.prime(provider.id, provider);
    return register(context, provider.id, item);
  },
};
