import { scopedStore, upstreamScope, type RemoteStore } from '../../../cache/remote-store.ts';
import { credentialKey } from '../../../credentials.ts';
import {
  BadUserInputError,
  notTheCallers,
  UnauthenticatedError,
  UpstreamBadResponseError,
  UpstreamStatusError,
} from '../../../errors.ts';
import type { GatewayConfig } from '../../../gateway-config.ts';
import { bearerAuthorization } from '../../../http/auth.ts';
import { path } from '../../../http/path.ts';
import { upstreamHttpOptions, type UpstreamHooks } from '../../../http/upstream-options.ts';
import {
  UpstreamHttp,
  type CallContext,
  type UpstreamRequest,
  type UpstreamResponse,
} from '../../../http/upstream-http.ts';
import {
  decodeCatalogItem,
  decodePage,
  decodeProvider,
  decodeToken,
  parseJson,
} from '../decode.ts';
import {
  createdRequestId,
  decodeCatalogRequest,
  decodeCatalogResource,
  decodeEntitledCatalogItemView,
  decodeRequestTemplate,
  isFinalRequest,
  requestChanged,
} from '../consumer-decode.ts';
import { readVraErrorBody } from './error-body.ts';
import { readVra8ErrorBody } from '../v8/error-body.ts';
import { maxPageSize, readAll, type PageRequest } from '../paging.ts';
import { asCallerMistake } from '../refused-input.ts';
import { SharedCache } from '../../../cache/shared-cache.ts';
import { detached, sharedCall, untilGone } from '../../../cache/shared-read.ts';
import { TokenCache, type IssuedToken, type VraCredential } from '../tokens.ts';
import { Watcher, watchKey, type WatcherOptions } from '../../poller.ts';
import type { BlueprintPublication, CatalogRequestEvent, VraApi } from '../api.ts';
import type * as wire from '../wire.ts';

export type { CatalogRequestEvent } from '../api.ts';

const consumer = '/catalog-service/api/consumer';

export interface VraClientOptions {
  /** The service account; undefined when VRA_USERNAME, VRA_PASSWORD or VRA_TENANT is unset. */
  credential: VraCredential | undefined;
  /** How long the provider list is shared across requests per credential; 0: not shared. */
  providerCacheTtlMs?: number;
  /** Credentials whose provider list is kept at most (the oldest is evicted first). */
  providerCacheMaxEntries?: number;
  /** Epoch ms; a fake clock in tests. */
  now?: () => number;
  /** Polling of followed catalog requests. */
  watcher?: WatcherOptions;
  /** Shares the provider list and the polls of catalog requests with the other replicas. */
  remote?: RemoteStore | undefined;
  /**
   * Told when vRA has refused a call's credential (401), once what this
   * client keeps for it is forgotten: for what other clients keep under the
   * same credential (vRO with VRO_AUTH_MODE=vra-token).
   */
  onCredentialRefused?: ((call: CallContext) => Promise<void>) | undefined;
}

const json = 'application/json';

/** Typed calls to the catalog service (vRA 7); every call carries a bearer token and `Accept: application/json`. */
export class VraClient implements VraApi {
  readonly #http: UpstreamHttp;
  readonly #tokens: TokenCache<CallContext>;
  readonly #credential: VraCredential | undefined;
  readonly #providerCache: SharedCache<wire.WireProvider[]> | undefined;
  readonly #watcher: Watcher<wire.WireCatalogRequest, { request: wire.WireCatalogRequest }>;
  readonly #onCredentialRefused: ((call: CallContext) => Promise<void>) | undefined;

  constructor(http: UpstreamHttp, options: VraClientOptions) {
    this.#http = http;
    this.#onCredentialRefused = options.onCredentialRefused;
    this.#watcher = new Watcher(
      {
        changed: requestChanged,
        isFinal: isFinalRequest,
        event: (request) => ({ request }),
        requestIdPrefix: 'vra-watch',
      },
      { ...options.watcher, remote: options.remote },
    );
    this.#credential = options.credential;
    const ttlMs = options.providerCacheTtlMs ?? 0;
    this.#providerCache =
      ttlMs > 0
        ? new SharedCache({
            name: 'vra_providers',
            ttlMs,
            maxEntries: options.providerCacheMaxEntries ?? 1000,
            remote: options.remote,
            ...(options.now === undefined ? {} : { now: options.now }),
          })
        : undefined;
    this.#tokens = new TokenCache({
      issue: (credential, call) => this.#issueToken(credential, call),
    });
  }

  async listProviders(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireProvider>> {
    const response = await this.#providersAnswer(call, page);
    return decodePage(parseJson(response.body, response.status), response.status, decodeProvider);
  }

  /**
   * The whole provider list: one call of up to 5000, more pages only if vRA
   * holds more. Shared across requests per credential (the user's own vRA
   * bearer, else the service account) for the cache's time: providers change
   * only when a service is installed on vRA, never through this gateway.
   * The shared read does not stop when one waiting client goes away.
   */
  allProviders(call: CallContext): Promise<wire.WireProvider[]> {
    const cache = this.#providerCache;
    if (cache === undefined) return this.#readAllProviders(call);
    const shared = cache.get(credentialKey(call.credentials?.vra), () =>
      this.#readAllProviders({ ...call, signal: detached }),
    );
    return untilGone(shared, call.signal);
  }

  /** The provider list cache (undefined when PROVIDER_CACHE_TTL_MS is 0), for metrics. */
  get providerCache(): SharedCache<wire.WireProvider[]> | undefined {
    return this.#providerCache;
  }

  async getProvider(call: CallContext, id: string): Promise<wire.WireProvider> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/catalog-service/api/providers/${id}`,
      route: '/catalog-service/api/providers/{id}',
    });
    return decodeProvider(parseJson(response.body, response.status), response.status);
  }

  async listCatalogItems(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireCatalogItem>> {
    const response = await this.#send(call, {
      method: 'GET',
      path: '/catalog-service/api/catalogItems',
      route: '/catalog-service/api/catalogItems',
      query: { page: page.page, limit: page.limit },
    });
    return decodePage(parseJson(response.body, response.status), response.status, (item, s) =>
      decodeCatalogItem(item, s),
    );
  }

  /**
   * Registers (or updates) a provider catalog item: what publishes a blueprint.
   * vRA's answer is unconfirmed (docs/upstreams.md, vRA): a body is mapped when it
   * is a catalog item; with 201/204 and no body (or a body that is not an
   * item) the item is read back by its binding, because vRA gives the item an
   * id of its own, not the bindingId (docs/upstreams.md, vRA).
   * Registering changes no provider, so the shared provider list stays; but
   * a 404 (the provider is gone) makes the caller's list forgotten on every
   * replica before the error answers.
   */
  async registerCatalogItem(
    call: CallContext,
    providerId: string,
    item: wire.WireProviderCatalogItem,
  ): Promise<wire.WireCatalogItem> {
    const response = await this.#send(call, {
      method: 'PUT',
      path: path`/catalog-service/api/provider/providers/${providerId}/catalogItems/${item.id}`,
      route: '/catalog-service/api/provider/providers/{providerId}/catalogItems/{bindingId}',
      headers: { 'content-type': json },
      body: JSON.stringify(item),
    }).catch(async (error: unknown) => {
      // The provider is gone: a shared provider list holding it is stale.
      if (error instanceof UpstreamStatusError && error.status === 404) {
        await this.#providerCache?.forget(credentialKey(call.credentials?.vra));
      }
      throw error;
    });
    if (response.body.trim() !== '') {
      try {
        return decodeCatalogItem(JSON.parse(response.body), response.status, providerId);
      } catch {
        // fall through: the registration itself succeeded
      }
    }
    return this.#registeredItem(call, providerId, item);
  }

  /**
   * Publishing = registering a provider catalog item with the infrastructure
   * provider (docs/upstreams.md, vRA); a published flag on the blueprint does
   * nothing. The provider is found by name among the caller's providers.
   */
  async publishBlueprint(
    call: CallContext,
    publication: BlueprintPublication,
  ): Promise<wire.WireCatalogItem> {
    const { item, provider: wanted } = publication;
    const provider = await publication.findProvider(wanted.name);
    if (provider === null) {
      const source = wanted.configured ? ' (the configured VRA_IAAS_PROVIDER_NAME)' : '';
      throw new BadUserInputError(
        `No catalog provider is named "${wanted.name}"${source}; the blueprint was not published.`,
        'input.providerName',
      );
    }
    return this.registerCatalogItem(call, provider.id, item);
  }

  /**
   * The catalog item registered for this provider and binding. Items are
   * filtered by name (the `$filter` form vRA documents) and matched on the
   * binding here.
   */
  async #registeredItem(
    call: CallContext,
    providerId: string,
    item: wire.WireProviderCatalogItem,
  ): Promise<wire.WireCatalogItem> {
    const response = await this.#send(call, {
      method: 'GET',
      path: '/catalog-service/api/catalogItems',
      route: '/catalog-service/api/catalogItems?$filter=name',
      query: {
        page: 1,
        limit: maxPageSize,
        $filter: `name eq '${item.name.replaceAll("'", "''")}'`,
      },
    });
    const page = decodePage(parseJson(response.body, response.status), response.status, (raw, s) =>
      decodeCatalogItem(raw, s),
    );
    const found = page.content.find(
      (candidate) =>
        candidate.providerBinding?.bindingId === item.id &&
        candidate.providerBinding.providerRef?.id === providerId,
    );
    if (found === undefined) {
      throw new UpstreamBadResponseError(
        'vra',
        `the registration was accepted, but no catalog item lists binding ${item.id}`,
        response.status,
      );
    }
    return found;
  }

  /** `GET /consumer/entitledCatalogItemViews?page=&limit=`: what the caller may request. */
  async listEntitledCatalogItems(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireEntitledCatalogItemView>> {
    const response = await this.#send(call, {
      method: 'GET',
      path: `${consumer}/entitledCatalogItemViews`,
      route: `${consumer}/entitledCatalogItemViews`,
      query: { page: page.page, limit: page.limit },
    });
    return decodePage(
      parseJson(response.body, response.status),
      response.status,
      decodeEntitledCatalogItemView,
    );
  }

  /** `GET /consumer/entitledCatalogItems/{id}/requests/template` */
  async getRequestTemplate(
    call: CallContext,
    catalogItemId: string,
  ): Promise<wire.WireRequestTemplate> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/catalog-service/api/consumer/entitledCatalogItems/${catalogItemId}/requests/template`,
      route: `${consumer}/entitledCatalogItems/{id}/requests/template`,
    });
    return decodeRequestTemplate(parseJson(response.body, response.status), response.status);
  }

  /** `POST /consumer/entitledCatalogItems/{id}/requests` with an edited template: the new request. */
  submitCatalogItemRequest(
    call: CallContext,
    catalogItemId: string,
    body: Record<string, unknown>,
  ): Promise<wire.WireCatalogRequest> {
    return this.#submit(call, body, {
      path: path`/catalog-service/api/consumer/entitledCatalogItems/${catalogItemId}/requests`,
      route: `${consumer}/entitledCatalogItems/{id}/requests`,
    });
  }

  /** `GET /consumer/resources/{resourceId}/actions/{actionId}/requests/template` */
  async getResourceActionTemplate(
    call: CallContext,
    resourceId: string,
    actionId: string,
  ): Promise<wire.WireRequestTemplate> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/catalog-service/api/consumer/resources/${resourceId}/actions/${actionId}/requests/template`,
      route: `${consumer}/resources/{resourceId}/actions/{actionId}/requests/template`,
    });
    return decodeRequestTemplate(parseJson(response.body, response.status), response.status);
  }

  /** `POST /consumer/resources/{resourceId}/actions/{actionId}/requests`: the new request. */
  submitResourceActionRequest(
    call: CallContext,
    resourceId: string,
    actionId: string,
    body: Record<string, unknown>,
  ): Promise<wire.WireCatalogRequest> {
    return this.#submit(call, body, {
      path: path`/catalog-service/api/consumer/resources/${resourceId}/actions/${actionId}/requests`,
      route: `${consumer}/resources/{resourceId}/actions/{actionId}/requests`,
    });
  }

  /** `GET /consumer/requests/{id}` */
  async getCatalogRequest(call: CallContext, id: string): Promise<wire.WireCatalogRequest> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/catalog-service/api/consumer/requests/${id}`,
      route: `${consumer}/requests/{id}`,
    });
    return decodeCatalogRequest(parseJson(response.body, response.status), response.status);
  }

  /** `GET /consumer/requests?page=&limit=&$orderby=dateSubmitted desc`: newest first. */
  async listCatalogRequests(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireCatalogRequest>> {
    const response = await this.#send(call, {
      method: 'GET',
      path: `${consumer}/requests`,
      route: `${consumer}/requests`,
      query: { page: page.page, limit: page.limit, $orderby: 'dateSubmitted desc' },
    });
    return decodePage(
      parseJson(response.body, response.status),
      response.status,
      decodeCatalogRequest,
    );
  }

  /** Every resource of a request: `GET /consumer/requests/{id}/resources`, more pages only if vRA holds more. */
  requestResources(call: CallContext, requestId: string): Promise<wire.WireCatalogResource[]> {
    const pages = this.#http.pagedRead(call);
    return readAll(pages, async (page) => {
      const response = await pages.next((maxBytes) =>
        this.#send(call, {
          method: 'GET',
          path: path`/catalog-service/api/consumer/requests/${requestId}/resources`,
          route: `${consumer}/requests/{id}/resources`,
          query: { page: page.page, limit: page.limit },
          maxBytes,
        }),
      );
      return decodePage(
        parseJson(response.body, response.status),
        response.status,
        decodeCatalogResource,
      );
    });
  }

  /** `GET /consumer/resources/{id}` */
  async getResource(call: CallContext, id: string): Promise<wire.WireCatalogResource> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/catalog-service/api/consumer/resources/${id}`,
      route: `${consumer}/resources/{id}`,
    });
    return decodeCatalogResource(parseJson(response.body, response.status), response.status);
  }

  /**
   * The request now and on every change of state or phase until vRA marks it
   * final, from one poller shared by every subscriber with the same credentials.
   */
  watchCatalogRequest(call: CallContext, id: string): AsyncIterableIterator<CatalogRequestEvent> {
    const credentials = call.credentials;
    const key = watchKey('catalog-request', id, credentialKey(credentials?.vra));
    return this.#watcher.watch(key, (signal, requestId) =>
      this.getCatalogRequest(
        credentials === undefined ? { signal, requestId } : { signal, requestId, credentials },
        id,
      ),
    );
  }

  /** Number of catalog requests being polled for subscriptions. */
  get activeWatches(): number {
    return this.#watcher.activePollers;
  }

  close(): Promise<void> {
    this.#watcher.close();
    this.#tokens.clear();
    return this.#http.close();
  }

  /**
   * Sends a catalog call with a bearer token. On 401 the token is dropped,
   * obtained again (once, shared by every call rejected with it) and the call
   * retried once: a 401 means vRA did not act on it, so a retry is safe.
   */
  async #send(call: CallContext, request: UpstreamRequest): Promise<UpstreamResponse> {
    const first = await this.#authorization(call);
    try {
      return await this.#http.request(call, this.#withHeaders(request, first.header));
    } catch (error) {
      if (!isUnauthorized(error)) throw error;
      if (first.token === undefined) {
        // The user's own bearer was refused (expired, revoked): nothing cached for it may serve again.
        await this.#forgetCredential(call);
        throw error;
      }
      const renewed = await this.#authorization(call, first.token);
      try {
        return await this.#http.request(call, this.#withHeaders(request, renewed.header));
      } catch (again) {
        if (isUnauthorized(again)) {
          // Refused with a brand-new token too: the service account itself is refused.
          if (this.#credential !== undefined && renewed.token !== undefined) {
            this.#tokens.reject(this.#credential, renewed.token);
          }
          await this.#forgetCredential(call);
        }
        throw again;
      }
    }
  }

  /**
   * Drops what is cached for the call's credential after vRA refused it (its
   * provider list, and what `onCredentialRefused` forgets), on every replica.
   */
  async #forgetCredential(call: CallContext): Promise<void> {
    await Promise.all([
      this.#providerCache?.forget(credentialKey(call.credentials?.vra)),
      this.#onCredentialRefused?.(call),
    ]);
  }

  /** The seam, for readiness and metrics. */
  get seam(): UpstreamHttp {
    return this.#http;
  }

  /**
   * POSTs a request body; 201 answers the new request in the body, or only a
   * `Location` ending in its id (then the request is read). A 400 is the
   * caller's mistake (BAD_USER_INPUT). A POST is never retried (but on 401).
   */
  async #submit(
    call: CallContext,
    body: Record<string, unknown>,
    target: { path: string; route: string },
  ): Promise<wire.WireCatalogRequest> {
    const response = await this.#send(call, {
      method: 'POST',
      ...target,
      headers: { 'content-type': json },
      body: JSON.stringify(body),
    }).catch((error: unknown) => {
      throw asCallerMistake(error);
    });
    const created = createdRequestId(response.body, response.headers['location'], response.status);
    if (created.request !== undefined) return created.request;
    try {
      return await this.getCatalogRequest(call, created.id);
    } catch {
      // The request exists; its first read failed: answer what is known of a new request.
      return { id: created.id, state: 'SUBMITTED', final: false };
    }
  }

  #withHeaders(request: UpstreamRequest, authorization: string): UpstreamRequest {
    return { ...request, authorization, headers: { accept: json, ...request.headers } };
  }

  /**
   * The one place the upstream `Authorization` is computed: the user's own vRA
   * bearer when the request carries one (used as is: the gateway cannot renew
   * it), else a token of the service account from the cache.
   */
  async #authorization(
    call: CallContext,
    rejected?: string,
  ): Promise<{ header: string; token: string | undefined }> {
    const user = call.credentials?.vra;
    if (user !== undefined) return { header: user, token: undefined };
    const credential = this.#credential;
    if (credential === undefined) {
      throw new UnauthenticatedError(
        'The catalog service (vRA) credentials are not configured (VRA_USERNAME, VRA_PASSWORD, VRA_TENANT).',
      );
    }
    if (rejected !== undefined) this.#tokens.reject(credential, rejected);
    const token = await this.#tokens.token(credential, call);
    return { header: bearerAuthorization(token), token };
  }

  #readAllProviders(call: CallContext): Promise<wire.WireProvider[]> {
    const pages = this.#http.pagedRead(call);
    return readAll(pages, async (page) => {
      const response = await pages.next((maxBytes) => this.#providersAnswer(call, page, maxBytes));
      return decodePage(parseJson(response.body, response.status), response.status, decodeProvider);
    });
  }

  /** `GET /providers?page=&limit=`; `maxBytes`: the most its body may have (a page of a paged read). */
  #providersAnswer(call: CallContext, page: PageRequest, maxBytes?: number) {
    return this.#send(call, {
      method: 'GET',
      path: '/catalog-service/api/providers',
      route: '/catalog-service/api/providers',
      query: { page: page.page, limit: page.limit },
      ...(maxBytes === undefined ? {} : { maxBytes }),
    });
  }

  async #issueToken(credential: VraCredential, call: CallContext): Promise<IssuedToken> {
    // The caller has no part in the service account's login: its refusal is no BAD_USER_INPUT.
    return this.#postToken(credential, sharedCall(call), notTheCallers);
  }

  /** vRA 7 looks a user up within a tenant (`POST /identity/api/tokens` requires it). */
  tenantRequired(): Promise<boolean> {
    return Promise.resolve(true);
  }

  /**
   * A person's sign-in: their own token from vRA's identity service, as vRA's
   * portal gets one. Wrong credentials answer 401 (UNAUTHENTICATED); nothing
   * is cached, and the password is a secret of the call (never repeated).
   */
  signIn(call: CallContext, credential: VraCredential): Promise<IssuedToken> {
    return this.#postToken(credential, call, (error) => error);
  }

  /** Revokes a person's token (`DELETE /identity/api/tokens/{id}`, sent with that token). */
  async deleteToken(call: CallContext, token: string): Promise<void> {
    await this.#http.request(call, {
      method: 'DELETE',
      path: path`/identity/api/tokens/${token}`,
      route: '/identity/api/tokens/{id}',
      authorization: bearerAuthorization(token),
      headers: { accept: json },
      secrets: [token],
    });
  }

  async #postToken(
    credential: VraCredential,
    call: CallContext,
    mapError: (error: unknown) => unknown,
  ): Promise<IssuedToken> {
    const body: wire.WireTokenRequest = {
      username: credential.username,
      password: credential.password,
      tenant: credential.tenant,
    };
    const response = await this.#http
      .request(call, {
        method: 'POST',
        path: '/identity/api/tokens',
        route: '/identity/api/tokens',
        headers: { accept: json, 'content-type': json },
        body: JSON.stringify(body),
        secrets: [credential.password],
        exclusive: true,
      })
      .catch((error: unknown) => {
        throw mapError(error);
      });
    const token = decodeToken(parseJson(response.body, response.status), response.status);
    return { id: token.id, expiresAt: token.expiresAt };
  }
}

/** `remote`: the store shared with the other replicas, if any. */
export function createVraClient(
  config: GatewayConfig,
  hooks: UpstreamHooks = {},
  remote?: RemoteStore,
  onCredentialRefused?: (call: CallContext) => Promise<void>,
  http?: UpstreamHttp,
): VraClient {
  const { username, password, tenant } = config.vra;
  return new VraClient(http ?? vraSeam(config, hooks), {
    credential:
      username === undefined || password === undefined || tenant === undefined
        ? undefined
        : { username, password, tenant },
    providerCacheTtlMs: config.providerCacheTtlMs,
    remote:
      remote === undefined ? undefined : scopedStore(remote, upstreamScope('vra', config.vra)),
    onCredentialRefused,
  });
}

/**
 * The one seam to VRA_URL, whichever generation answers there: error bodies
 * are read in vRA 7's `{"errors":[...]}` form, else in vRA 8's.
 */
export function vraSeam(config: GatewayConfig, hooks: UpstreamHooks = {}): UpstreamHttp {
  return new UpstreamHttp({
    ...upstreamHttpOptions(config, 'vra', hooks),
    readErrorBody: (body, contentType) => {
      const read = readVraErrorBody(body, contentType);
      return read.code === null && read.message === null
        ? readVra8ErrorBody(body, contentType)
        : read;
    },
  });
}

function isUnauthorized(error: unknown): boolean {
  return error instanceof UpstreamStatusError && error.status === 401;
}
