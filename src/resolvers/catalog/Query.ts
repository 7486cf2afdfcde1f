import { BadUserInputError, nullOnNotFound } from '../../errors.ts';
import type { QueryResolvers } from '../../generated/graphql.ts';
import { loadProvider } from '../../loaders/vra.ts';
import { readWindow } from '../../upstreams/vra/paging.ts';
import { connectionWindow, toConnection } from './connection.ts';
import { providerIdPattern } from './registration-input.ts';

export const Query: QueryResolvers = {
  async providers(_root, { first, after }, { loaders }) {
    const { offset, size } = connectionWindow('providers', first, after);
    const window = await readWindow((page) => loaders.vra.providerPage.load(page), offset, size);
    return toConnection('providers', offset, window);
  },

  async provider(_root, { id }, { clients, call, loaders }) {
    if (!providerIdPattern.test(id)) {
      throw new BadUserInputError('"id" must be a provider id (a UUID).', 'id');
    }
    const provider = await nullOnNotFound(() => clients.vra.getProvider(call, id));
    if (provider !== null) loaders.vra.providerById.prime(provider.id, provider);
    return provider;
  },

  providerByName(_root, { name }, { loaders }) {
    if (name.trim() === '') throw new BadUserInputError('"name" must not be empty.', 'name');
    return loadProvider(loaders.vra.providerByName, name);
  },

  async catalogItems(_root, { first, after }, { loaders }) {
    const { offset, size } = connectionWindow('catalogItems', first, after);
    const window = await readWindow((page) => loaders.vra.catalogItemPage.load(page), offset, size);
    return toConnection('catalogItems', offset, window);
  },
};
