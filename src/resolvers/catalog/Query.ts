import { nullOnNotFound } from '../../errors.ts';
import type { QueryResolvers } from '../../generated/graphql.ts';
import { checkProviderId, checkProviderName, checkVraId } from '../../inputs/catalog.ts';
import { loadProvider } from '../../loaders/vra.ts';
import { readWindow } from '../../upstreams/vra/paging.ts';
import { connectionWindow, toConnection } from '../connection.ts';
import { nullWhereUnsupported } from './not-supported.ts';

export const Query: QueryResolvers = {
  // Providers (and the caller's request list) have no vRA 8 counterpart: null there.
  async providers(_root, { first, after }, { loaders }) {
    const { offset, size } = connectionWindow('providers', first, after);
    const window = await nullWhereUnsupported(() =>
      readWindow((page) => loaders.vra.providerPage.load(page), offset, size),
    );
    return window === null ? null : toConnection('providers', offset, window);
  },

  async provider(_root, { id }, { clients, call, loaders }) {
    checkProviderId(id, 'id');
    const provider = await nullWhereUnsupported(() =>
      nullOnNotFound(() => clients.vra.getProvider(call, id)),
    );
    if (provider !== null) loaders.vra.providerById.prime(provider.id, provider);
    return provider;
  },

  providerByName(_root, { name }, { loaders }) {
    const checked = checkProviderName(name, 'name');
    return nullWhereUnsupported(() => loadProvider(loaders.vra.providerByName, checked));
  },

  async catalogItems(_root, { first, after }, { loaders }) {
    const { offset, size } = connectionWindow('catalogItems', first, after);
    const window = await readWindow((page) => loaders.vra.catalogItemPage.load(page), offset, size);
    return toConnection('catalogItems', offset, window);
  },

  async entitledCatalogItems(_root, { first, after }, { loaders }) {
    const { offset, size } = connectionWindow('entitledCatalogItems', first, after);
    const window = await readWindow(
      (page) => loaders.vra.entitledItemPage.load(page),
      offset,
      size,
    );
    return toConnection('entitledCatalogItems', offset, window);
  },

  catalogRequest(_root, { id }, { loaders }) {
    checkVraId(id, 'id');
    return nullOnNotFound(() => loaders.vra.catalogRequest.load(id));
  },

  async catalogRequests(_root, { first, after }, { loaders }) {
    const { offset, size } = connectionWindow('catalogRequests', first, after);
    const window = await nullWhereUnsupported(() =>
      readWindow((page) => loaders.vra.catalogRequestPage.load(page), offset, size),
    );
    if (window === null) return null;
    for (const request of window.items) loaders.vra.catalogRequest.prime(request.id, request);
    return toConnection('catalogRequests', offset, window);
  },

  catalogResource(_root, { id }, { loaders }) {
    checkVraId(id, 'id');
    return nullOnNotFound(() => loaders.vra.resource.load(id));
  },
};
