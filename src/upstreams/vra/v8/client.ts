import { randomUUID } from 'node:crypto';
import { scopedStore, upstreamScope, type RemoteStore } from '../../../cache/remote-store.ts';
import type { GatewayConfig } from '../../../gateway-config.ts';
import { sharedCall } from '../../../cache/shared-read.ts';
import { credentialKey } from '../../../credentials.ts';
import {
  BadUserInputError,
  notTheCallers,
  NotSupportedError,
  UnauthenticatedError,
  UpstreamBadResponseError,
  UpstreamStatusError,
} from '../../../errors.ts';
import { bearerAuthorization } from '../../../http/auth.ts';
import { path } from '../../../http/path.ts';
import type {
  CallContext,
  UpstreamHttp,
  UpstreamRequest,
  UpstreamResponse,
} from '../../../http/upstream-http.ts';
import { Watcher, watchKey, type WatcherOptions } from '../../poller.ts';
import type { BlueprintPublication, CatalogRequestEvent, VraApi } from '../api.ts';
import { isFinalRequest, requestChanged } from '../consumer-decode.ts';
import { isObject, parseJson } from '../decode.ts';
import type { PageRequest } from '../paging.ts';
import { asCallerMistake } from '../refused-input.ts';
import { TokenCache, type IssuedToken, type VraCredential } from '../tokens.ts';
import type * as wire from '../wire.ts';
import {
  asVra7Page,
  decodeActions,
  decodeAuthResponse,
  decodeBlueprint,
  decodeCatalogItem8,
  decodeCspLogin,
  decodeDeploymentWithLastRequest,
  decodeRequest8,
  decodeRequestResponses,
  decodeResource8,
  decodeSource,
  decodeVra8Page,
  decodeProjectId,
  decodeVersion,
  skipTop,
  toActionTemplate,
  toCatalogItem,
  toCatalogRequest,
  toEntitledItem,
  toRequestTemplate,
  toResource,
  tokenExpiry,
} from './decode.ts';
import type {
  Vra8ActionRequest,
  Vra8BlueprintVersionRequest,
  Vra8CatalogItem,
  Vra8CatalogItemRequest,
  Vra8CatalogSource,
  Vra8CspLogin,
  Vra8Entitlement,
  Vra8Resource,
} from './wire.ts';

const json = 'application/json';
const generation = 'vRA 8';
/** Items per page when the gateway reads a whole vRA 8 list (the specs set no maximum). */
const wholeListPage = 200;
/** Resources whose deployment is remembered, at most. */
const rememberedResources = 10_000;
/** Type of a catalog source that imports a project's released blueprints (Service Broker). */
export const blueprintSourceType = 'com.vmw.blueprint';

export interface Vra8ClientOptions {
  /** The service account; `tenant` is the CSP `domain` ('' sends none). */
  credential: VraCredential | undefined;
  watcher?: WatcherOptions;
  remote?: RemoteStore | undefined;
  /** Told when vRA refused a user's own bearer (401), as the vRA 7 client does. */
  onCredentialRefused?: ((call: CallContext) => Promise<void>) | undefined;
  /** Epoch ms; a fake clock in tests. */
  now?: () => number;
}

/**
 * Typed calls to vRA 8 (Aria Automation: Service Broker catalog, deployment,
 * blueprint and IaaS APIs, vmware/vra-sdk-go swagger/), answering the vRA 7
 * records the catalog resolvers map. What vRA 8 lacks throws
 * `NotSupportedError` before any call.
 */
export class Vra8Client implements VraApi {
  readonly #http: UpstreamHttp;
  readonly #credential: VraCredential | undefined;
  readonly #tokens: TokenCache<CallContext>;
  readonly #watcher: Watcher<wire.WireCatalogRequest, { request: wire.WireCatalogRequest }>;
  readonly #onCredentialRefused: ((call: CallContext) => Promise<void>) | undefined;
  readonly #now: () => number;
  /** Resource id → its deployment's id, most recently listed last. */
  readonly #deploymentOfResource = new Map<string, string>();

  constructor(http: UpstreamHttp, options: Vra8ClientOptions) {
    this.#http = http;
    this.#credential = options.credential;
    this.#onCredentialRefused = options.onCredentialRefused;
    this.#now = options.now ?? Date.now;
    this.#tokens = new TokenCache({
      issue: (credential, call) => this.#issueToken(credential, call),
      now: this.#now,
    });
    this.#watcher = new Watcher(
      {
        changed: requestChanged,
        isFinal: isFinalRequest,
        event: (request) => ({ request }),
        requestIdPrefix: 'vra8-watch',
      },
      { ...options.watcher, remote: options.remote },
    );
  }

  // vRA 8 has no catalog providers (no counterpart of /catalog-service/api/providers):
  // the provider fields answer null (see the resolvers' nullWhereUnsupported).
  listProviders(): Promise<wire.WirePage<wire.WireProvider>> {
    return Promise.reject(new NotSupportedError('providers', generation));
  }

  allProviders(): Promise<wire.WireProvider[]> {
    return Promise.reject(new NotSupportedError('providers', generation));
  }

  getProvider(): Promise<wire.WireProvider> {
    return Promise.reject(new NotSupportedError('provider', generation));
  }

  /** Registering against a provider has no vRA 8 counterpart: refused before any call. */
  registerCatalogItem(): Promise<wire.WireCatalogItem> {
    return Promise.reject(new NotSupportedError('registerCatalogItem', generation));
  }

  /**
   * `GET /catalog/api/items` (getCatalogItemsUsingGET_5): the catalog items,
   * as vRA 7's catalogItems. The admin listing (getCatalogItemsUsingGET_4)
   * would add items shared with no project; the service account, a member
   * of the projects, sees every item that can be requested.
   */
  async listCatalogItems(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireCatalogItem>> {
    const response = await this.#send(call, {
      method: 'GET',
      path: '/catalog/api/items',
      route: '/catalog/api/items',
      query: skipTop(page),
    });
    const items = decodeVra8Page(
      parseJson(response.body, response.status),
      response.status,
      decodeCatalogItem8,
    );
    return asVra7Page(items, page, toCatalogItem);
  }

  /**
   * `GET /catalog/api/items?expandProjects=true` (getCatalogItemsUsingGET_5):
   * what the caller may request. An item lists every project it is shared
   * with; its business groups are those the caller is a member of
   * (`GET /iaas/api/projects`, getProjects, answers only the caller's).
   */
  async listEntitledCatalogItems(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireEntitledCatalogItemView>> {
    const [response, member] = await Promise.all([
      this.#send(call, {
        method: 'GET',
        path: '/catalog/api/items',
        route: '/catalog/api/items',
        query: { ...skipTop(page), expandProjects: true },
      }),
      this.#memberProjects(call),
    ]);
    const items = decodeVra8Page(
      parseJson(response.body, response.status),
      response.status,
      decodeCatalogItem8,
    );
    return asVra7Page(items, page, (item) => toEntitledItem(item, member));
  }

  /** The ids of the projects the caller is a member of (getProjects, vra-iaas.json). */
  async #memberProjects(call: CallContext): Promise<ReadonlySet<string>> {
    const ids = await this.#wholeList(
      call,
      { path: '/iaas/api/projects', route: '/iaas/api/projects' },
      decodeProjectId,
    );
    return new Set(ids);
  }

  async #catalogItem(call: CallContext, id: string): Promise<Vra8CatalogItem> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/catalog/api/items/${id}`,
      route: '/catalog/api/items/{id}',
      query: { expandProjects: true },
    });
    return decodeCatalogItem8(parseJson(response.body, response.status), response.status);
  }

  /** The item's request form: built from its input `schema` (getCatalogItemUsingGET_5). */
  async getRequestTemplate(
    call: CallContext,
    catalogItemId: string,
  ): Promise<wire.WireRequestTemplate> {
    const [item, member] = await Promise.all([
      this.#catalogItem(call, catalogItemId),
      this.#memberProjects(call),
    ]);
    return toRequestTemplate(item, member);
  }

  /**
   * `POST /catalog/api/items/{id}/request` (requestCatalogItemInstancesUsingPOST_1)
   * with `{deploymentName, projectId, inputs, reason}` from the edited
   * template: `businessGroupId` is the project, `data` the inputs, `reasons`
   * the reason, `deploymentName` (else `description`) the deployment's name (else the item's name and
   * a short random suffix: names are unique per project). vRA answers only
   * `[{deploymentId, deploymentName}]`; the new request is the deployment's
   * newest request (getDeploymentRequestsUsingGET_2).
   */
  async submitCatalogItemRequest(
    call: CallContext,
    catalogItemId: string,
    body: Record<string, unknown>,
  ): Promise<wire.WireCatalogRequest> {
    const projectId = body['businessGroupId'];
    if (typeof projectId !== 'string' || projectId === '') {
      throw new BadUserInputError(
        'The catalog item is shared with no project: give input.businessGroupId (a vRA 8 project id).',
        'input.businessGroupId',
      );
    }
    const named = [body['deploymentName'], body['description']].find(
      (name): name is string => typeof name === 'string' && name.trim() !== '',
    );
    const itemName = typeof body['catalogItemName'] === 'string' ? body['catalogItemName'] : 'item';
    const request: Vra8CatalogItemRequest = {
      deploymentName: named ?? `${itemName}-${randomUUID().slice(0, 8)}`,
      projectId,
      // an input still null is one the template left for the caller, not given
      inputs: isObject(body['data'])
        ? Object.fromEntries(Object.entries(body['data']).filter(([, value]) => value !== null))
        : {},
      ...(typeof body['reasons'] === 'string' ? { reason: body['reasons'] } : {}),
    };
    const response = await this.#send(call, {
      method: 'POST',
      path: path`/catalog/api/items/${catalogItemId}/request`,
      route: '/catalog/api/items/{id}/request',
      headers: { 'content-type': json },
      body: JSON.stringify(request),
    }).catch((error: unknown) => {
      throw asCallerMistake(error);
    });
    const [created] = decodeRequestResponses(
      parseJson(response.body, response.status),
      response.status,
    );
    // decodeRequestResponses answers at least one entry
    return this.#newestRequest(call, created?.deploymentId ?? '');
  }

  async #newestRequest(call: CallContext, deploymentId: string): Promise<wire.WireCatalogRequest> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/deployment/api/deployments/${deploymentId}/requests`,
      route: '/deployment/api/deployments/{deploymentId}/requests',
    });
    const page = decodeVra8Page(
      parseJson(response.body, response.status),
      response.status,
      decodeRequest8,
    );
    const newest = page.content.reduce<(typeof page.content)[number] | undefined>(
      (found, request) =>
        found === undefined || (request.createdAt ?? '') > (found.createdAt ?? '')
          ? request
          : found,
      undefined,
    );
    if (newest === undefined) {
      throw new UpstreamBadResponseError(
        'vra',
        `deployment ${deploymentId} was created, but it lists no request`,
        response.status,
      );
    }
    return toCatalogRequest(newest);
  }

  /**
   * A day-2 action's form, from the resource's actions
   * (`GET /deployment/api/deployments/{d}/resources/{r}/actions`,
   * getResourceActionsUsingGET_4): vRA 8 addresses a resource within its
   * deployment, which the gateway learnt when it listed the resource.
   */
  async getResourceActionTemplate(
    call: CallContext,
    resourceId: string,
    actionId: string,
  ): Promise<wire.WireRequestTemplate> {
    const deploymentId = await this.#deploymentOf(call, resourceId);
    const actions = await this.#actions(call, deploymentId, resourceId);
    const action = actions.find((candidate) => candidate.id === actionId);
    if (action === undefined) {
      throw new UpstreamStatusError(
        'vra',
        404,
        null,
        `resource ${resourceId} has no action ${actionId}`,
      );
    }
    return toActionTemplate({ kind: 'resource', id: resourceId }, action);
  }

  /**
   * `POST /deployment/api/deployments/{d}/resources/{r}/requests`
   * (submitResourceActionRequestUsingPOST_4) with `{actionId, inputs, reason}`:
   * the answer is the new deployment request.
   */
  async submitResourceActionRequest(
    call: CallContext,
    resourceId: string,
    actionId: string,
    body: Record<string, unknown>,
  ): Promise<wire.WireCatalogRequest> {
    const deploymentId = await this.#deploymentOf(call, resourceId);
    const request: Vra8ActionRequest = {
      actionId,
      inputs: isObject(body['data']) ? body['data'] : {},
      ...(typeof body['reasons'] === 'string' ? { reason: body['reasons'] } : {}),
    };
    const response = await this.#send(call, {
      method: 'POST',
      path: path`/deployment/api/deployments/${deploymentId}/resources/${resourceId}/requests`,
      route: '/deployment/api/deployments/{deploymentId}/resources/{resourceId}/requests',
      headers: { 'content-type': json },
      body: JSON.stringify(request),
    }).catch((error: unknown) => {
      throw asCallerMistake(error);
    });
    return toCatalogRequest(
      decodeRequest8(parseJson(response.body, response.status), response.status),
    );
  }

  /** `GET /deployment/api/requests/{requestId}` (getRequestUsingGET_2). */
  async getCatalogRequest(call: CallContext, id: string): Promise<wire.WireCatalogRequest> {
    return toCatalogRequest(await this.#request(call, id));
  }

  async #request(call: CallContext, id: string) {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/deployment/api/requests/${id}`,
      route: '/deployment/api/requests/{requestId}',
    });
    return decodeRequest8(parseJson(response.body, response.status), response.status);
  }

  /**
   * vRA 8 lists requests only per deployment or resource: there is no list
   * of a caller's requests across deployments. The caller's deployments,
   * newest first, each with its last request (`expand=lastRequest`,
   * getDeploymentsUsingGET_2) stand for it: one call a page, each
   * deployment's latest order or action (older ones of the same deployment
   * are read by id, `catalogRequest`).
   */
  async listCatalogRequests(
    call: CallContext,
    page: PageRequest,
  ): Promise<wire.WirePage<wire.WireCatalogRequest>> {
    const response = await this.#send(call, {
      method: 'GET',
      path: '/deployment/api/deployments',
      route: '/deployment/api/deployments',
      query: { ...skipTop(page), $orderby: 'createdAt desc', expand: 'lastRequest' },
    });
    const deployments = decodeVra8Page(
      parseJson(response.body, response.status),
      response.status,
      decodeDeploymentWithLastRequest,
    );
    return asVra7Page(deployments, page, (deployment) => ({
      ...toCatalogRequest(deployment.lastRequest),
      description: deployment.name,
    }));
  }

  /**
   * What a request built: the resources of its deployment
   * (getDeploymentResourcesUsingGET_2), each with its day-2 actions. The
   * deployment itself is no resource on vRA 8 (vRA 7 listed it among them).
   */
  async requestResources(
    call: CallContext,
    requestId: string,
  ): Promise<wire.WireCatalogResource[]> {
    const request = await this.#request(call, requestId);
    const deploymentId = request.deploymentId;
    if (deploymentId === undefined || deploymentId === null || deploymentId === '') return [];
    const resources = await this.#deploymentResources(call, deploymentId);
    return Promise.all(
      resources.map((resource) => this.#withActions(call, deploymentId, resource)),
    );
  }

  async #withActions(
    call: CallContext,
    deploymentId: string,
    resource: Vra8Resource,
  ): Promise<wire.WireCatalogResource> {
    return toResource(resource, await this.#actions(call, deploymentId, resource.id));
  }

  /** Every resource of a deployment, remembering where each lives. */
  async #deploymentResources(call: CallContext, deploymentId: string): Promise<Vra8Resource[]> {
    const all = await this.#wholeList(
      call,
      {
        path: path`/deployment/api/deployments/${deploymentId}/resources`,
        route: '/deployment/api/deployments/{deploymentId}/resources',
      },
      decodeResource8,
    );
    for (const resource of all) this.#remember(resource.id, deploymentId);
    return all;
  }

  /** getResourceActionsUsingGET_4. */
  async #actions(call: CallContext, deploymentId: string, resourceId: string) {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/deployment/api/deployments/${deploymentId}/resources/${resourceId}/actions`,
      route: '/deployment/api/deployments/{deploymentId}/resources/{resourceId}/actions',
    });
    return decodeActions(parseJson(response.body, response.status), response.status);
  }

  #remember(resourceId: string, deploymentId: string): void {
    this.#deploymentOfResource.delete(resourceId);
    this.#deploymentOfResource.set(resourceId, deploymentId);
    if (this.#deploymentOfResource.size > rememberedResources) {
      const oldest = this.#deploymentOfResource.keys().next().value;
      if (oldest !== undefined) this.#deploymentOfResource.delete(oldest);
    }
  }

  /**
   * The deployment of a resource: remembered from a listing, else asked
   * with `GET /deployment/api/resources/{id}` (getResourceByIdUsingGET_5,
   * whose `deploymentId` says it).
   */
  async #deploymentOf(call: CallContext, resourceId: string): Promise<string> {
    const known = this.#deploymentOfResource.get(resourceId);
    if (known !== undefined) return known;
    const resource = await this.#resourceById(call, resourceId);
    const deploymentId = resource.deploymentId;
    if (typeof deploymentId !== 'string' || deploymentId === '') {
      throw new UpstreamBadResponseError('vra', `resource ${resourceId} names no deployment`, 200);
    }
    this.#remember(resourceId, deploymentId);
    return deploymentId;
  }

  async #resourceById(call: CallContext, id: string): Promise<Vra8Resource> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/deployment/api/resources/${id}`,
      route: '/deployment/api/resources/{resourceId}',
    });
    return decodeResource8(parseJson(response.body, response.status), response.status);
  }

  /**
   * A resource by id: found among its deployment's resources when the
   * deployment is known, else `GET /deployment/api/resources/{id}`
   * (getResourceByIdUsingGET_5); with its day-2 actions.
   */
  async getResource(call: CallContext, id: string): Promise<wire.WireCatalogResource> {
    const deploymentId = this.#deploymentOfResource.get(id);
    if (deploymentId !== undefined) {
      const listed = await this.#deploymentResources(call, deploymentId);
      const found = listed.find((resource) => resource.id === id);
      if (found !== undefined) return this.#withActions(call, deploymentId, found);
      this.#deploymentOfResource.delete(id);
    }
    const resource = await this.#resourceById(call, id);
    const owner = resource.deploymentId;
    if (typeof owner !== 'string' || owner === '') return toResource(resource, []);
    this.#remember(id, owner);
    return this.#withActions(call, owner, resource);
  }

  /**
   * The request now and on every change of status until it is final, from
   * one poller shared by every subscriber with the same credentials.
   */
  watchCatalogRequest(call: CallContext, id: string): AsyncIterableIterator<CatalogRequestEvent> {
    const credentials = call.credentials;
    const key = watchKey('catalog-request-8', id, credentialKey(credentials?.vra));
    return this.#watcher.watch(key, (signal, requestId) =>
      this.getCatalogRequest(
        credentials === undefined ? { signal, requestId } : { signal, requestId, credentials },
        id,
      ),
    );
  }

  /**
   * The vRA 8 form of publishing a blueprint (publishBlueprint): the
   * blueprint (`virtualMachineTemplateId` is its id) gets a new released
   * version (createBlueprintVersionUsingPOST_1 with `release: true`,
   * vra-blueprint.json), its project gets a Service Broker content source
   * of type `com.vmw.blueprint` (postUsingPOST_2; an existing one is posted
   * again, which imports the newly released version), and the source is
   * shared with the project (content sharing: an entitlement,
   * createEntitlementUsingPOST_2). The answer is the catalog item that
   * carries the blueprint (it has the blueprint's id, getCatalogItemUsingGET_5).
   * The item's name, icon and types are vRA 8's own (the blueprint's); the
   * provider name has no meaning without providers and is not used.
   * `organization.subtenantRef`, when given, is the project to share with.
   */
  async publishBlueprint(
    call: CallContext,
    { item }: BlueprintPublication,
  ): Promise<wire.WireCatalogItem> {
    const blueprintId = item.id;
    const blueprint = await this.#blueprint(call, blueprintId);
    const projectId = blueprint.projectId;
    if (projectId === undefined || projectId === null || projectId === '') {
      throw new UpstreamBadResponseError('vra', `blueprint ${blueprintId} has no project`, 200);
    }
    await this.#releaseVersion(call, blueprintId, await this.#nextVersion(call, blueprintId), item);
    const source = await this.#importSource(call, projectId);
    await this.#share(call, item.organization.subtenantRef ?? projectId, source);
    return this.#publishedItem(call, blueprintId);
  }

  async #blueprint(call: CallContext, id: string) {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/blueprint/api/blueprints/${id}`,
      route: '/blueprint/api/blueprints/{blueprintId}',
    });
    return decodeBlueprint(parseJson(response.body, response.status), response.status);
  }

  /**
   * A version the blueprint does not have yet: one past the highest whole
   * version (listBlueprintVersionsUsingGET), as vRA 8's UI numbers them.
   */
  async #nextVersion(call: CallContext, blueprintId: string): Promise<string> {
    const versions = await this.#wholeList(
      call,
      {
        path: path`/blueprint/api/blueprints/${blueprintId}/versions`,
        route: '/blueprint/api/blueprints/{blueprintId}/versions',
      },
      decodeVersion,
    );
    const taken = new Set(versions);
    let highest = 0;
    for (const version of taken) highest = Math.max(highest, Number.parseInt(version, 10) || 0);
    let next = highest + 1;
    while (taken.has(String(next))) next += 1;
    return String(next);
  }

  async #releaseVersion(
    call: CallContext,
    blueprintId: string,
    next: string,
    item: wire.WireProviderCatalogItem,
  ): Promise<void> {
    const body: Vra8BlueprintVersionRequest = {
      version: next,
      description: item.description,
      changeLog: `Published through the gateway as "${item.name}".`,
      release: true,
    };
    await this.#send(call, {
      method: 'POST',
      path: path`/blueprint/api/blueprints/${blueprintId}/versions`,
      route: '/blueprint/api/blueprints/{blueprintId}/versions',
      headers: { 'content-type': json },
      body: JSON.stringify(body),
    }).catch((error: unknown) => {
      throw asCallerMistake(error);
    });
  }

  /** The project's blueprint content source (getPageUsingGET_2), created or posted again (postUsingPOST_2). */
  async #importSource(call: CallContext, projectId: string): Promise<Vra8CatalogSource> {
    const listed = await this.#send(call, {
      method: 'GET',
      path: '/catalog/api/admin/sources',
      route: '/catalog/api/admin/sources',
      query: { $top: wholeListPage },
    });
    const sources = decodeVra8Page(
      parseJson(listed.body, listed.status),
      listed.status,
      decodeSource,
    );
    const existing = sources.content.find(
      (source) =>
        source.typeId === blueprintSourceType && source.config['sourceProjectId'] === projectId,
    );
    // CatalogSource and Entitlement list `id` as required (vra-catalog-deployment.json): a new one gets a fresh UUID.
    const body: Vra8CatalogSource = existing ?? {
      id: randomUUID(),
      name: `Blueprints of project ${projectId}`,
      typeId: blueprintSourceType,
      config: { sourceProjectId: projectId },
      projectId,
    };
    const response = await this.#send(call, {
      method: 'POST',
      path: '/catalog/api/admin/sources',
      route: '/catalog/api/admin/sources',
      headers: { 'content-type': json },
      body: JSON.stringify(body),
    });
    return decodeSource(parseJson(response.body, response.status), response.status);
  }

  /** Shares the source with the project unless an entitlement already does (getEntitlementsUsingGET_2). */
  async #share(call: CallContext, projectId: string, source: Vra8CatalogSource): Promise<void> {
    const sourceId = source.id ?? '';
    const listed = await this.#send(call, {
      method: 'GET',
      path: '/catalog/api/admin/entitlements',
      route: '/catalog/api/admin/entitlements',
      query: { projectId },
    });
    const entitlements: unknown = parseJson(listed.body, listed.status);
    const shared =
      Array.isArray(entitlements) &&
      entitlements.some(
        (entry) =>
          isObject(entry) &&
          isObject(entry['definition']) &&
          entry['definition']['id'] === sourceId,
      );
    if (shared) return;
    const body: Vra8Entitlement = {
      id: randomUUID(),
      projectId,
      definition: { id: sourceId, type: 'CatalogSourceIdentifier', name: source.name },
    };
    await this.#send(call, {
      method: 'POST',
      path: '/catalog/api/admin/entitlements',
      route: '/catalog/api/admin/entitlements',
      headers: { 'content-type': json },
      body: JSON.stringify(body),
    });
  }

  /**
   * The catalog item a blueprint source imported: it has the blueprint's id
   * (getCatalogItemUsingGET_5).
   */
  async #publishedItem(call: CallContext, blueprintId: string): Promise<wire.WireCatalogItem> {
    return toCatalogItem(await this.#catalogItem(call, blueprintId));
  }

  /** The CSP `domain` is optional: a user name may carry its domain (`user@corp.local`). */
  tenantRequired(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /**
   * A person's sign-in: the CSP login with their credentials, then their
   * bearer from `/iaas/api/login`. Wrong credentials: the CSP's 400/401.
   */
  signIn(call: CallContext, credential: VraCredential): Promise<IssuedToken> {
    return this.#login(credential, call, (error) => error);
  }

  /**
   * Ends a person's bearer: `POST /csp/gateway/am/api/auth/logout` sent
   * with it (CSP, as VMware's vRA 8 docs give it; in none of the Swagger files).
   */
  async deleteToken(call: CallContext, token: string): Promise<void> {
    await this.#http.request(call, {
      method: 'POST',
      path: '/csp/gateway/am/api/auth/logout',
      route: '/csp/gateway/am/api/auth/logout',
      authorization: bearerAuthorization(token),
      headers: { accept: json, 'content-type': json },
      body: '{}',
      secrets: [token],
    });
  }

  /**
   * A bearer of another account logged in at this vRA 8 (the vRO service
   * account under VRO_AUTH_MODE=vra-token: vRO 8 trusts vRA 8's tokens),
   * cached and renewed as the service account's own. `rejected`: a token
   * its receiver refused, dropped first (one new login for every call
   * refused with it).
   */
  bearerOf(call: CallContext, credential: VraCredential, rejected?: string): Promise<string> {
    if (rejected !== undefined) this.#tokens.reject(credential, rejected);
    return this.#tokens.token(credential, call);
  }

  /** Drops a bearer of `bearerOf` its receiver refused: the next call logs in again. */
  rejectBearer(credential: VraCredential, rejected: string): void {
    this.#tokens.reject(credential, rejected);
  }

  get activeWatches(): number {
    return this.#watcher.activePollers;
  }

  /** No provider list on vRA 8. */
  get providerCache(): undefined {
    return undefined;
  }

  get seam(): UpstreamHttp {
    return this.#http;
  }

  /** Ends the polls and forgets the tokens; the seam is closed by its owner (createClients). */
  close(): Promise<void> {
    this.#watcher.close();
    this.#tokens.clear();
    return Promise.resolve();
  }

  /**
   * Every item of a vRA 8 list, `GET` a page of `wholeListPage` at a time
   * (`$skip`, `$top`) until a page is empty or `totalElements` are read,
   * within the seam's paging limits (a total past them fails at once).
   */
  async #wholeList<T>(
    call: CallContext,
    request: Pick<UpstreamRequest, 'path' | 'route'>,
    decodeItem: (item: unknown, status: number) => T,
  ): Promise<T[]> {
    const all: T[] = [];
    const pages = this.#http.pagedRead(call);
    for (let skip = 0; ; skip += wholeListPage) {
      const response = await pages.next((maxBytes) =>
        this.#send(call, {
          method: 'GET',
          ...request,
          query: { $skip: skip, $top: wholeListPage },
          maxBytes,
        }),
      );
      const page = decodeVra8Page(
        parseJson(response.body, response.status),
        response.status,
        decodeItem,
      );
      for (const item of page.content) all.push(item);
      // A page of every item (`$top` ignored) ends the list as well.
      if (page.content.length === 0 || all.length >= page.totalElements) break;
      if (skip + wholeListPage >= page.totalElements) break;
      pages.expectPages(Math.ceil(page.totalElements / wholeListPage));
    }
    return all;
  }

  /**
   * Sends a call with a bearer. On 401 the service account's token is
   * dropped, obtained again (once, shared by every call refused with it) and
   * the call retried once: a 401 means vRA did not act on it. A user's own
   * bearer is never renewed: its refusal ends what is cached for it.
   */
  async #send(call: CallContext, request: UpstreamRequest): Promise<UpstreamResponse> {
    const first = await this.#authorization(call);
    try {
      return await this.#http.request(call, withHeaders(request, first.header));
    } catch (error) {
      if (!isUnauthorized(error)) throw error;
      if (first.token === undefined) {
        await this.#onCredentialRefused?.(call);
        throw error;
      }
      const renewed = await this.#authorization(call, first.token);
      try {
        return await this.#http.request(call, withHeaders(request, renewed.header));
      } catch (again) {
        if (
          isUnauthorized(again) &&
          this.#credential !== undefined &&
          renewed.token !== undefined
        ) {
          this.#tokens.reject(this.#credential, renewed.token);
        }
        throw again;
      }
    }
  }

  async #authorization(
    call: CallContext,
    rejected?: string,
  ): Promise<{ header: string; token: string | undefined }> {
    const user = call.credentials?.vra;
    if (user !== undefined) return { header: user, token: undefined };
    const credential = this.#credential;
    if (credential === undefined) {
      throw new UnauthenticatedError(
        'The catalog service (vRA) credentials are not configured (VRA_USERNAME, VRA_PASSWORD).',
      );
    }
    if (rejected !== undefined) this.#tokens.reject(credential, rejected);
    const token = await this.#tokens.token(credential, call);
    return { header: bearerAuthorization(token), token };
  }

  #issueToken(credential: VraCredential, call: CallContext): Promise<IssuedToken> {
    // The caller has no part in the service account's login: its refusal is no BAD_USER_INPUT.
    return this.#login(credential, sharedCall(call), notTheCallers);
  }

  /**
   * CSP login, `POST /csp/gateway/am/api/login?access_token`
   * `{username, password, domain}` → `refresh_token` (VMware's "Get your
   * access token" for vRA 8; the CSP is in none of the Swagger files), then
   * `POST /iaas/api/login` `{refreshToken}` → `{token}` (vra-iaas.json,
   * retrieveAuthToken). VRA_TENANT (or signIn's tenant) is the CSP
   * `domain`: like vRA 7's tenant, it names where the user name is looked
   * up (an AD domain, or `System Domain` for local users); vRA 8 tenants
   * themselves are told apart by host name, not by a body field.
   */
  async #login(
    credential: VraCredential,
    call: CallContext,
    mapError: (error: unknown) => unknown,
  ): Promise<IssuedToken> {
    const login: Vra8CspLogin = {
      username: credential.username,
      password: credential.password,
      ...(credential.tenant === '' ? {} : { domain: credential.tenant }),
    };
    const csp = await this.#http
      .request(call, {
        method: 'POST',
        path: '/csp/gateway/am/api/login?access_token',
        route: '/csp/gateway/am/api/login?access_token',
        headers: { accept: json, 'content-type': json },
        body: JSON.stringify(login),
        secrets: [credential.password],
        exclusive: true,
      })
      .catch((error: unknown) => {
        throw mapError(error);
      });
    const refreshToken = decodeCspLogin(parseJson(csp.body, csp.status), csp.status);
    const response = await this.#http
      .request(call, {
        method: 'POST',
        path: '/iaas/api/login',
        route: '/iaas/api/login',
        headers: { accept: json, 'content-type': json },
        body: JSON.stringify({ refreshToken }),
        secrets: [credential.password, refreshToken],
        exclusive: true,
      })
      .catch((error: unknown) => {
        throw mapError(error);
      });
    const token = decodeAuthResponse(parseJson(response.body, response.status), response.status);
    return { id: token, expiresAt: tokenExpiry(token, this.#now()) };
  }
}

function withHeaders(request: UpstreamRequest, authorization: string): UpstreamRequest {
  return { ...request, authorization, headers: { accept: json, ...request.headers } };
}

function isUnauthorized(error: unknown): boolean {
  return error instanceof UpstreamStatusError && error.status === 401;
}

/**
 * The vRA 8 client over the seam to VRA_URL (shared with the vRA 7 client:
 * one seam per upstream). The service account needs VRA_USERNAME and
 * VRA_PASSWORD; VRA_TENANT, when set, is its CSP `domain`.
 */
export function createVra8Client(
  config: GatewayConfig,
  http: UpstreamHttp,
  remote?: RemoteStore,
  onCredentialRefused?: (call: CallContext) => Promise<void>,
): Vra8Client {
  const { username, password, tenant } = config.vra;
  return new Vra8Client(http, {
    credential:
      username === undefined || password === undefined
        ? undefined
        : { username, password, tenant: tenant ?? '' },
    remote:
      remote === undefined ? undefined : scopedStore(remote, upstreamScope('vra8', config.vra)),
    onCredentialRefused,
  });
}
