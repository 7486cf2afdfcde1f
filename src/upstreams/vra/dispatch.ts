import type { SharedCache } from '../../cache/shared-cache.ts';
import { isObject } from './decode.ts';
import { UnauthenticatedError } from '../../errors.ts';
import type { CallContext, UpstreamHttp } from '../../http/upstream-http.ts';
import { isApplianceAnswer } from '../generation-answer.ts';
import { GenerationProbe } from '../generation-probe.ts';
import type { VraGeneration } from '../../config.ts';
import type { BlueprintPublication, CatalogRequestEvent, VraApi } from './api.ts';
import type { PageRequest } from './paging.ts';
import type { IssuedToken, VraCredential } from './tokens.ts';
import type * as wire from './wire.ts';

/**
 * Which generation answers at VRA_URL: `GET /iaas/api/about` needs no
 * credential on vRA 8 and answers `About {supportedApis, latestApiVersion}`
 * (vra-iaas.json, getAboutPage). vRA 7 has no `/iaas/api`: its Tomcat
 * answers 404, or, in front of its authentication, 401 (an HTML error page
 * or JSON), 403, a redirect to the login, or a login page with 200. So any
 * answer but the about page is vRA 7; no answer (or a 5xx, 429) is asked
 * again on the next call (isApplianceAnswer).
 */
export async function askVraGeneration(
  http: UpstreamHttp,
  call: CallContext,
): Promise<VraGeneration> {
  let body: string;
  try {
    ({ body } = await http.request(call, {
      method: 'GET',
      path: '/iaas/api/about',
      route: '/iaas/api/about',
      headers: { accept: 'application/json' },
    }));
  } catch (error) {
    if (isApplianceAnswer(error)) return '7';
    throw error;
  }
  let about: unknown;
  try {
    about = JSON.parse(body) as unknown;
  } catch {
    about = undefined;
  }
  return isObject(about) && Array.isArray(about['supportedApis']) ? '8' : '7';
}

/**
 * `clients.vra`: the catalog service whichever generation answers at
 * VRA_URL. The generation is VRA_API_GENERATION when set, else asked of the
 * appliance once (`askVraGeneration`); every call is then delegated to the
 * vRA 7 or the vRA 8 client, which share the one seam to VRA_URL.
 */
export class VraDispatch implements VraApi {
  readonly #probe: GenerationProbe<VraGeneration>;
  readonly #v7: VraApi;
  readonly #v8: VraApi;
  readonly #seam: UpstreamHttp;
  readonly #serviceAccount: boolean;

  constructor(options: {
    configured: VraGeneration | undefined;
    /** VRA_USERNAME and VRA_PASSWORD are set: some generation's client has a service account. */
    serviceAccount: boolean;
    seam: UpstreamHttp;
    v7: VraApi;
    v8: VraApi;
  }) {
    this.#seam = options.seam;
    this.#v7 = options.v7;
    this.#v8 = options.v8;
    this.#serviceAccount = options.serviceAccount;
    this.#probe = new GenerationProbe(options.configured, (call) =>
      askVraGeneration(options.seam, call),
    );
  }

  /** The generation once known (configured or asked). */
  get generation(): VraGeneration | undefined {
    return this.#probe.known;
  }

  /** The generation: the configured or known one, else asked (at most once at a time). */
  generationOf(call: CallContext): Promise<VraGeneration> {
    return this.#probe.get(call);
  }

  /** The client of the appliance's generation (asked once, unless configured). */
  async client(call: CallContext): Promise<VraApi> {
    return this.#of(await this.#probe.get(call));
  }

  #of(generation: VraGeneration): VraApi {
    return generation === '8' ? this.#v8 : this.#v7;
  }

  /**
   * Runs an authenticated call on the generation's client. With no
   * credential at all (no service account, no user bearer) neither
   * generation could answer it: UNAUTHENTICATED, without asking the generation.
   */
  async #on<T>(call: CallContext, run: (api: VraApi) => Promise<T>): Promise<T> {
    const known = this.#probe.known;
    if (known !== undefined) return run(this.#of(known));
    if (!this.#serviceAccount && call.credentials?.vra === undefined) {
      throw new UnauthenticatedError(
        'The catalog service (vRA) credentials are not configured (VRA_USERNAME, VRA_PASSWORD; VRA_TENANT on vRA 7).',
      );
    }
    return run(await this.client(call));
  }

  /** A call that needs no credential (a sign-in, a token's own revocation). */
  async #anonymous<T>(call: CallContext, run: (api: VraApi) => Promise<T>): Promise<T> {
    return run(await this.client(call));
  }

  listProviders(call: CallContext, page: PageRequest): Promise<wire.WirePage<wire.WireProvider>> {
    return this.#on(call, (api) => api.listProviders(call, page));
  }

  allProviders(call: CallContext): Promise<wire.WireProvider[]> {
    return this.#on(call, (api) => api.allProviders(call));
  }

  getProvider(call: CallContext, id: string): Promise<wire.WireProvider> {
    return this.#on(call, (api) => api.getProvider(call, id));
  }

  listCatalogItems(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireCatalogItem>> {
    return this.#on(call, (api) => api.listCatalogItems(call, page));
  }

  registerCatalogItem(
    call: CallContext,
    providerId: string,
    item: wire.WireProviderCatalogItem,
  ): Promise<wire.WireCatalogItem> {
    return this.#on(call, (api) => api.registerCatalogItem(call, providerId, item));
  }

  publishBlueprint(
    call: CallContext,
    publication: BlueprintPublication,
  ): Promise<wire.WireCatalogItem> {
    return this.#on(call, (api) => api.publishBlueprint(call, publication));
  }

  listEntitledCatalogItems(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireEntitledCatalogItemView>> {
    return this.#on(call, (api) => api.listEntitledCatalogItems(call, page));
  }

  getRequestTemplate(call: CallContext, catalogItemId: string): Promise<wire.WireRequestTemplate> {
    return this.#on(call, (api) => api.getRequestTemplate(call, catalogItemId));
  }

  submitCatalogItemRequest(
    call: CallContext,
    catalogItemId: string,
    body: Record<string, unknown>,
  ): Promise<wire.WireCatalogRequest> {
    return this.#on(call, (api) => api.submitCatalogItemRequest(call, catalogItemId, body));
  }

  getResourceActionTemplate(
    call: CallContext,
    resourceId: string,
    actionId: string,
  ): Promise<wire.WireRequestTemplate> {
    return this.#on(call, (api) => api.getResourceActionTemplate(call, resourceId, actionId));
  }

  submitResourceActionRequest(
    call: CallContext,
    resourceId: string,
    actionId: string,
    body: Record<string, unknown>,
  ): Promise<wire.WireCatalogRequest> {
    return this.#on(call, (api) =>
      api.submitResourceActionRequest(call, resourceId, actionId, body),
    );
  }

  getCatalogRequest(call: CallContext, id: string): Promise<wire.WireCatalogRequest> {
    return this.#on(call, (api) => api.getCatalogRequest(call, id));
  }

  listCatalogRequests(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireCatalogRequest>> {
    return this.#on(call, (api) => api.listCatalogRequests(call, page));
  }

  requestResources(call: CallContext, requestId: string): Promise<wire.WireCatalogResource[]> {
    return this.#on(call, (api) => api.requestResources(call, requestId));
  }

  getResource(call: CallContext, id: string): Promise<wire.WireCatalogResource> {
    return this.#on(call, (api) => api.getResource(call, id));
  }

  /** The generation's own watch when it is known; else one that first asks it. */
  watchCatalogRequest(call: CallContext, id: string): AsyncIterableIterator<CatalogRequestEvent> {
    const known = this.#probe.known;
    if (known !== undefined) return this.#of(known).watchCatalogRequest(call, id);
    const client = (): Promise<VraApi> => this.#on(call, (api) => Promise.resolve(api));
    return (async function* asked() {
      yield* (await client()).watchCatalogRequest(call, id);
    })();
  }

  tenantRequired(call: CallContext): Promise<boolean> {
    return this.#anonymous(call, (api) => api.tenantRequired(call));
  }

  signIn(call: CallContext, credential: VraCredential): Promise<IssuedToken> {
    return this.#anonymous(call, (api) => api.signIn(call, credential));
  }

  deleteToken(call: CallContext, token: string): Promise<void> {
    return this.#anonymous(call, (api) => api.deleteToken(call, token));
  }

  get activeWatches(): number {
    return this.#v7.activeWatches + this.#v8.activeWatches;
  }

  get providerCache(): SharedCache<wire.WireProvider[]> | undefined {
    return this.#v7.providerCache;
  }

  get seam(): UpstreamHttp {
    return this.#seam;
  }

  /** Closes both generations' clients; the vRA 7 client closes the shared seam. */
  async close(): Promise<void> {
    await this.#v8.close();
    await this.#v7.close();
  }
}
