import DataLoader from 'dataloader';
import { ConcurrencyLimiter } from '../http/concurrency-limiter.ts';
import type { CallContext } from '../http/upstream-http.ts';
import type { VraApi } from '../upstreams/vra/api.ts';
import { settleEach } from './settle-each.ts';
import type { PageRequest } from '../upstreams/vra/paging.ts';
import type * as wire from '../upstreams/vra/wire.ts';

export interface VraLoaders {
  /**
   * Providers by id, all from one read of the provider list per request; that
   * list is shared across requests per credential for PROVIDER_CACHE_TTL_MS.
   */
  providerById: DataLoader<string, wire.WireProvider>;
  /** Providers by exact name, from the same shared read. */
  providerByName: DataLoader<string, wire.WireProvider>;
  /** Provider list pages (identical page reads in one request are made once). */
  providerPage: DataLoader<PageRequest, wire.WirePage<wire.WireProvider>, string>;
  /** Catalog item list pages; registrations clear it. */
  catalogItemPage: DataLoader<PageRequest, wire.WirePage<wire.WireCatalogItem>, string>;
  /** Entitled catalog item pages. */
  entitledItemPage: DataLoader<
    PageRequest,
    wire.WirePage<wire.WireEntitledCatalogItemView>,
    string
  >;
  /** Request templates by catalog item id: one call per item per GraphQL request. */
  requestTemplate: DataLoader<string, wire.WireRequestTemplate>;
  /** Catalog requests by id; a submit primes it with the new request. */
  catalogRequest: DataLoader<string, wire.WireCatalogRequest>;
  /** Catalog request pages (newest first). */
  catalogRequestPage: DataLoader<PageRequest, wire.WirePage<wire.WireCatalogRequest>, string>;
  /**
   * Resources of a request, by request id and state: a subscription's
   * context lives across its events, and what a request built changes with
   * its state.
   */
  requestResources: DataLoader<{ id: string; state: string }, wire.WireCatalogResource[], string>;
  /** Resources by id. */
  resource: DataLoader<string, wire.WireCatalogResource>;
}

/** A provider key the provider list does not hold: the GraphQL field answers null. */
class ProviderNotFoundError extends Error {
  constructor(what: string) {
    super(`No catalog provider ${what}.`);
    this.name = 'ProviderNotFoundError';
  }
}

/** Loads a provider, answering null when vRA has none with that key. */
export async function loadProvider(
  loader: DataLoader<string, wire.WireProvider>,
  key: string,
): Promise<wire.WireProvider | null> {
  try {
    return await loader.load(key);
  } catch (error) {
    if (error instanceof ProviderNotFoundError) return null;
    throw error;
  }
}

const pageKey = (page: PageRequest): string => `${page.page}:${page.limit}`;

/**
 * Per-item reads (a template per catalog item, the resources per request) of
 * one GraphQL request run at most this many at once, so that a long page
 * never takes all of vRA's slots from other clients' operations.
 */
export const perItemConcurrency = 8;

export function createVraLoaders(client: VraApi, call: CallContext): VraLoaders {
  let directory: Promise<wire.WireProvider[]> | undefined;
  // Both provider loaders batch into this one read: a catalog item page asking
  // for its providers, by id and by name, costs one provider call in all.
  const providers = (): Promise<wire.WireProvider[]> => {
    directory ??= client.allProviders(call).catch((error: unknown) => {
      directory = undefined;
      throw error;
    });
    return directory;
  };

  const byKey = (field: 'id' | 'name') =>
    new DataLoader<string, wire.WireProvider>(async (keys) => {
      const all = await providers();
      const found = new Map<string, wire.WireProvider>();
      for (const provider of all) {
        if (!found.has(provider[field])) found.set(provider[field], provider);
      }
      return keys.map(
        (key) =>
          found.get(key) ??
          new ProviderNotFoundError(`${field === 'id' ? 'has id' : 'is named'} "${key}"`),
      );
    });

  // One limiter per GraphQL request, shared by its per-item loaders.
  const perItem = new ConcurrencyLimiter(perItemConcurrency, Number.MAX_SAFE_INTEGER);
  const limited = async <T>(load: () => Promise<T>): Promise<T> => {
    const release = await perItem.acquire(call.signal);
    try {
      return await load();
    } finally {
      release();
    }
  };

  return {
    providerById: byKey('id'),
    providerByName: byKey('name'),
    providerPage: new DataLoader(
      (pages) => settleEach(pages, (page) => client.listProviders(call, page)),
      { cacheKeyFn: pageKey },
    ),
    catalogItemPage: new DataLoader(
      (pages) => settleEach(pages, (page) => client.listCatalogItems(call, page)),
      { cacheKeyFn: pageKey },
    ),
    entitledItemPage: new DataLoader(
      (pages) => settleEach(pages, (page) => client.listEntitledCatalogItems(call, page)),
      { cacheKeyFn: pageKey },
    ),
    requestTemplate: new DataLoader((ids) =>
      settleEach(ids, (id) => limited(() => client.getRequestTemplate(call, id))),
    ),
    catalogRequest: new DataLoader((ids) =>
      settleEach(ids, (id) => client.getCatalogRequest(call, id)),
    ),
    catalogRequestPage: new DataLoader(
      (pages) => settleEach(pages, (page) => client.listCatalogRequests(call, page)),
      { cacheKeyFn: pageKey },
    ),
    requestResources: new DataLoader(
      (keys) => settleEach(keys, (key) => limited(() => client.requestResources(call, key.id))),
      { cacheKeyFn: (key) => `${key.state} ${key.id}` },
    ),
    resource: new DataLoader((ids) => settleEach(ids, (id) => client.getResource(call, id))),
  };
}
