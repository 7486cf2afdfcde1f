import type { SharedCache } from '../../cache/shared-cache.ts';
import type { CallContext, UpstreamHttp } from '../../http/upstream-http.ts';
import type { WatchEvent } from '../poller.ts';
import type { PageRequest } from './paging.ts';
import type { IssuedToken, VraCredential } from './tokens.ts';
import type * as wire from './wire.ts';

/** What a catalog request subscription emits. */
export type CatalogRequestEvent = WatchEvent<{ request: wire.WireCatalogRequest }>;

/** A blueprint to publish as a catalog item (`publishBlueprint`), checked. */
export interface BlueprintPublication {
  /** The catalog item to make: its id is the blueprint's (vRA 7: virtualMachineTemplateId). */
  item: wire.WireProviderCatalogItem;
  /** vRA 7: the infrastructure provider's name; `configured`: it is VRA_IAAS_PROVIDER_NAME, not the caller's. */
  provider: { name: string; configured: boolean };
  /** vRA 7: the provider with that name, from the request's loaders (null: none). */
  findProvider(name: string): Promise<wire.WireProvider | null>;
}

/**
 * The catalog service as the resolvers, loaders and identity mutations use
 * it, whatever the appliance's generation: vRA 7 (`VraClient`), vRA 8
 * (`Vra8Client`), or the `VraDispatch` in front of both. Every record is the
 * vRA 7 wire shape the resolvers' mappers expect; a vRA 8 implementation
 * translates. What a generation lacks throws `NotSupportedError` before any call.
 */
export interface VraApi {
  listProviders(call: CallContext, page: PageRequest): Promise<wire.WirePage<wire.WireProvider>>;
  allProviders(call: CallContext): Promise<wire.WireProvider[]>;
  getProvider(call: CallContext, id: string): Promise<wire.WireProvider>;
  listCatalogItems(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireCatalogItem>>;
  registerCatalogItem(
    call: CallContext,
    providerId: string,
    item: wire.WireProviderCatalogItem,
  ): Promise<wire.WireCatalogItem>;
  publishBlueprint(
    call: CallContext,
    publication: BlueprintPublication,
  ): Promise<wire.WireCatalogItem>;
  listEntitledCatalogItems(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireEntitledCatalogItemView>>;
  getRequestTemplate(call: CallContext, catalogItemId: string): Promise<wire.WireRequestTemplate>;
  submitCatalogItemRequest(
    call: CallContext,
    catalogItemId: string,
    body: Record<string, unknown>,
  ): Promise<wire.WireCatalogRequest>;
  getResourceActionTemplate(
    call: CallContext,
    resourceId: string,
    actionId: string,
  ): Promise<wire.WireRequestTemplate>;
  submitResourceActionRequest(
    call: CallContext,
    resourceId: string,
    actionId: string,
    body: Record<string, unknown>,
  ): Promise<wire.WireCatalogRequest>;
  getCatalogRequest(call: CallContext, id: string): Promise<wire.WireCatalogRequest>;
  listCatalogRequests(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireCatalogRequest>>;
  requestResources(call: CallContext, requestId: string): Promise<wire.WireCatalogResource[]>;
  getResource(call: CallContext, id: string): Promise<wire.WireCatalogResource>;
  watchCatalogRequest(call: CallContext, id: string): AsyncIterableIterator<CatalogRequestEvent>;
  /** Whether a sign-in needs a tenant: vRA 7's tenant yes, vRA 8's CSP `domain` is optional. */
  tenantRequired(call: CallContext): Promise<boolean>;
  /** A person's sign-in: their own bearer. Refused credentials: an UpstreamStatusError 400 or 401. */
  signIn(call: CallContext, credential: VraCredential): Promise<IssuedToken>;
  /** Ends a person's token where the generation can. */
  deleteToken(call: CallContext, token: string): Promise<void>;
  /** Catalog requests being polled for subscriptions. */
  readonly activeWatches: number;
  /** The provider list cache (vRA 7 only), for metrics. */
  readonly providerCache: SharedCache<wire.WireProvider[]> | undefined;
  /** The one seam to the appliance, for readiness and metrics. */
  readonly seam: UpstreamHttp;
  close(): Promise<void>;
}
