/**
 * vRA 8 answers checked and translated into the records the catalog
 * resolvers already map (the vRA 7 wire shapes of ../vra/wire.ts), so the
 * resolvers need not know the generation. Where the meanings differ, the
 * choice is written beside the translation; the shapes cited are those of
 * vmware/vra-sdk-go's swagger/vra-catalog-deployment.json unless said.
 */
import { upstreamJson } from '../../../json-bounds.ts';
import { bad, isObject, isOptionalString } from '../decode.ts';
import type { PageRequest } from '../paging.ts';
import type {
  WireCatalogItem,
  WireCatalogRequest,
  WireCatalogResource,
  WireEntitledCatalogItemView,
  WirePage,
  WireRequestState,
  WireRequestTemplate,
  WireResourceOperation,
} from '../wire.ts';
import type {
  Vra8Action,
  Vra8Blueprint,
  Vra8CatalogItem,
  Vra8CatalogItemRequestResponse,
  Vra8CatalogSource,
  Vra8Deployment,
  Vra8Page,
  Vra8Reference,
  Vra8Request,
  Vra8Resource,
} from './wire.ts';

type Json = Record<string, unknown>;

function isOptionalBoolean(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'boolean';
}

function isWhole(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isReference(value: unknown): value is Vra8Reference | undefined {
  return (
    value === undefined ||
    (isObject(value) && isOptionalString(value['id']) && isOptionalString(value['name']))
  );
}

/** A Spring page `{content, totalElements, ...}`: every `PageOf…` of the specs. */
export function decodeVra8Page<T>(
  value: unknown,
  status: number,
  decodeItem: (item: unknown, status: number) => T,
): Vra8Page<T> {
  if (!isObject(value) || !Array.isArray(value['content'])) {
    throw bad('a vRA 8 page without content', status);
  }
  const total = value['totalElements'];
  if (total !== undefined && !isWhole(total)) {
    throw bad('a vRA 8 page without a whole totalElements', status);
  }
  const content = value['content'].map((item) => decodeItem(item, status));
  return { content, totalElements: total ?? content.length };
}

/**
 * A vRA 8 page as the vRA 7 page the paging helpers read: vRA 7's 1-based
 * `page`/`limit` were sent as `$skip`/`$top` (see `skipTop`), so the page's
 * place is known from the request.
 */
export function asVra7Page<A, B>(
  page: Vra8Page<A>,
  request: PageRequest,
  map: (item: A) => B,
): WirePage<B> {
  return {
    content: page.content.map(map),
    metadata: {
      size: request.limit,
      totalElements: page.totalElements,
      totalPages: Math.ceil(page.totalElements / request.limit),
      number: request.page,
      offset: (request.page - 1) * request.limit,
    },
  };
}

/** vRA 7's `page`/`limit` as the `$skip`/`$top` of vRA 8's lists. */
export function skipTop(page: PageRequest): { $skip: number; $top: number } {
  return { $skip: (page.page - 1) * page.limit, $top: page.limit };
}

export function decodeCatalogItem8(value: unknown, status: number): Vra8CatalogItem {
  if (
    !isObject(value) ||
    typeof value['id'] !== 'string' ||
    typeof value['name'] !== 'string' ||
    !Array.isArray(value['projectIds']) ||
    !value['projectIds'].every((id) => typeof id === 'string') ||
    !isObject(value['type'])
  ) {
    throw bad('a catalog item without id, name, projectIds or type', status);
  }
  const projects = value['projects'];
  const schema = value['schema'];
  if (
    !isOptionalString(value['description']) ||
    !isOptionalString(value['iconId']) ||
    !isOptionalString(value['externalId']) ||
    !isOptionalString(value['sourceId']) ||
    !isReference(value['type']) ||
    !(projects === undefined || (Array.isArray(projects) && projects.every(isReference))) ||
    !(schema === undefined || schema === null || isObject(schema))
  ) {
    throw bad('a catalog item with fields of unexpected types', status);
  }
  return value as unknown as Vra8CatalogItem;
}

const typeRef = (item: Vra8CatalogItem) =>
  item.type.id === undefined ? null : { id: item.type.id, label: item.type.name ?? null };

/**
 * A Service Broker catalog item as a vRA 7 catalog item. vRA 8 has no
 * providers, no output resource type and no tenant/business group owner on
 * an item (CatalogItem: projectIds, type, sourceId): those answer null.
 */
export function toCatalogItem(item: Vra8CatalogItem): WireCatalogItem {
  return {
    id: item.id,
    name: item.name,
    description: item.description ?? null,
    iconId: item.iconId ?? null,
    catalogItemTypeRef: typeRef(item),
    outputResourceTypeRef: null,
    organization: null,
    providerBinding: null,
    vra8: item,
  };
}

/**
 * A catalog item the caller may request, as vRA 7's entitled item view.
 * Business group ↔ project: vRA 8 shares catalog items with projects
 * (CatalogItem.projectIds, "Associated project IDs that can be used for
 * requesting") where vRA 7 entitled business groups; a project id is the
 * `businessGroupId` of `requestCatalogItem` and becomes its `projectId`. Only the caller's projects
 * are listed: an item names every project it is shared with.
 */
export function toEntitledItem(
  item: Vra8CatalogItem,
  member: ReadonlySet<string>,
): WireEntitledCatalogItemView {
  const names = new Map<string, string | null>();
  for (const project of item.projects ?? []) {
    if (project.id !== undefined) names.set(project.id, project.name ?? null);
  }
  return {
    catalogItemId: item.id,
    name: item.name,
    description: item.description ?? null,
    entitledOrganizations: item.projectIds
      .filter((id) => member.has(id))
      .map((id) => ({
        subtenantRef: id,
        subtenantLabel: names.get(id) ?? null,
      })),
    catalogItemTypeRef: typeRef(item),
    outputResourceTypeRef: null,
    vra8: item,
  };
}

/**
 * The item's inputs as a form edits them: each input's
 * `schema.properties[name].default`, and null for a `required` input without
 * one (the caller must give it: a form drawn from `data`, as vRA 7's
 * templates list every field, asks for it). `requestCatalogItem` sends no
 * input that is still null.
 */
function inputDefaults(schema: unknown): Json {
  const out: Json = {};
  const properties = isObject(schema) ? schema['properties'] : undefined;
  if (!isObject(properties)) return out;
  const required = new Set<unknown>(
    isObject(schema) && Array.isArray(schema['required']) ? schema['required'] : [],
  );
  for (const [name, property] of Object.entries(properties)) {
    const given = isObject(property) && 'default' in property;
    if (given || required.has(name)) {
      Object.defineProperty(out, name, {
        value: given ? property['default'] : null,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}

/**
 * The request template of a vRA 8 item: vRA 8 has none (a request is
 * `CatalogItemRequest {deploymentName, projectId, inputs, reason}`), so the
 * gateway builds one in vRA 7's form, which `requestCatalogItem` edits
 * unchanged: `data` holds the inputs (the schema's defaults), `businessGroupId`
 * the project (the item's first), `schema` the item's input schema: the form.
 */
export function toRequestTemplate(
  item: Vra8CatalogItem,
  member: ReadonlySet<string>,
): WireRequestTemplate {
  const template: WireRequestTemplate = {
    type: 'vra8.CatalogItemRequest',
    catalogItemId: item.id,
    catalogItemName: item.name,
    businessGroupId: item.projectIds.find((id) => member.has(id)) ?? item.projectIds[0] ?? null,
    description: null,
    reasons: null,
    data: inputDefaults(item.schema),
    schema: item.schema ?? { type: 'object', properties: {} },
  };
  // Measured once here: the JSON scalar does not walk it again.
  return upstreamJson('vra', template) as WireRequestTemplate;
}

/** A `Project`'s id (vra-iaas.json: `id` required). */
export function decodeProjectId(value: unknown, status: number): string {
  if (!isObject(value) || typeof value['id'] !== 'string') {
    throw bad('a project without an id', status);
  }
  return value['id'];
}

export function decodeRequestResponses(
  value: unknown,
  status: number,
): Vra8CatalogItemRequestResponse[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((entry) => isObject(entry) && typeof entry['deploymentId'] === 'string')
  ) {
    throw bad('a catalog item request answer without a deploymentId', status);
  }
  return value as Vra8CatalogItemRequestResponse[];
}

const requestStatuses = new Set([
  'CREATED',
  'PENDING',
  'INITIALIZATION',
  'CHECKING_APPROVAL',
  'APPROVAL_PENDING',
  'USER_INTERACTION_PENDING',
  'INPROGRESS',
  'COMPLETION',
  'APPROVAL_REJECTED',
  'ABORTED',
  'SUCCESSFUL',
  'FAILED',
]);

export function decodeRequest8(value: unknown, status: number): Vra8Request {
  if (!isObject(value) || typeof value['id'] !== 'string' || value['id'] === '') {
    throw bad('a deployment request without an id', status);
  }
  const state = value['status'];
  if (
    !(state === undefined || (typeof state === 'string' && requestStatuses.has(state))) ||
    !isOptionalString(value['name']) ||
    !isOptionalString(value['actionId']) ||
    !isOptionalString(value['catalogItemId']) ||
    !isOptionalString(value['deploymentId']) ||
    !isOptionalString(value['requestedBy']) ||
    !isOptionalString(value['createdAt']) ||
    !isOptionalString(value['completedAt']) ||
    !isOptionalBoolean(value['dismissed'])
  ) {
    throw bad('a deployment request with fields of unexpected types', status);
  }
  return value as unknown as Vra8Request;
}

/**
 * Catalog request ↔ deployment request: what vRA 7 called a request of an
 * item or an action, vRA 8 calls a deployment `Request` (one per create and
 * per day-2 action). Its `status` (Request.status enum) is kept as the
 * `phase`, and mapped onto the contract's states: approval steps to
 * PENDING_PRE_APPROVAL, running steps to IN_PROGRESS, APPROVAL_REJECTED to
 * REJECTED, ABORTED to FAILED. A request without a status was just created.
 */
const stateOf: Record<string, WireRequestState> = {
  CREATED: 'SUBMITTED',
  PENDING: 'SUBMITTED',
  INITIALIZATION: 'IN_PROGRESS',
  CHECKING_APPROVAL: 'PENDING_PRE_APPROVAL',
  APPROVAL_PENDING: 'PENDING_PRE_APPROVAL',
  USER_INTERACTION_PENDING: 'IN_PROGRESS',
  INPROGRESS: 'IN_PROGRESS',
  COMPLETION: 'IN_PROGRESS',
  APPROVAL_REJECTED: 'REJECTED',
  ABORTED: 'FAILED',
  SUCCESSFUL: 'SUCCESSFUL',
  FAILED: 'FAILED',
};

export function toCatalogRequest(request: Vra8Request): WireCatalogRequest {
  // Request.catalogItemId is "UUID:version"; the contract's catalogItemId is the item's id.
  // Every request names its action (a create too), so only catalogItemId tells an order.
  const item = request.catalogItemId?.split(':')[0];
  return {
    id: request.id,
    requestNumber: null,
    state: request.status === undefined ? 'SUBMITTED' : (stateOf[request.status] ?? 'SUBMITTED'),
    phase: request.status ?? null,
    description: request.name ?? null,
    requestedFor: request.requestedBy ?? null,
    dateCreated: request.createdAt ?? null,
    dateCompleted: request.completedAt ?? null,
    catalogItemRef: item === undefined || item === '' ? null : { id: item },
    vra8: request,
  };
}

export function decodeDeployment(value: unknown, status: number): Vra8Deployment {
  if (!isObject(value) || typeof value['id'] !== 'string' || typeof value['name'] !== 'string') {
    throw bad('a deployment without id or name', status);
  }
  if (
    !isOptionalString(value['description']) ||
    !isOptionalString(value['status']) ||
    !isOptionalString(value['projectId'])
  ) {
    throw bad('a deployment with fields of unexpected types', status);
  }
  return value as unknown as Vra8Deployment;
}

/**
 * A deployment listed with `expand=lastRequest`: every deployment was made by
 * a request, so one without it is not what vRA documents.
 */
export function decodeDeploymentWithLastRequest(
  value: unknown,
  status: number,
): Vra8Deployment & { lastRequest: Vra8Request } {
  const deployment = decodeDeployment(value, status);
  const last = (value as Record<string, unknown>)['lastRequest'];
  if (last === undefined || last === null)
    throw bad('a deployment without its last request', status);
  return { ...deployment, lastRequest: decodeRequest8(last, status) };
}

export function decodeResource8(value: unknown, status: number): Vra8Resource {
  if (
    !isObject(value) ||
    typeof value['id'] !== 'string' ||
    typeof value['name'] !== 'string' ||
    typeof value['type'] !== 'string'
  ) {
    throw bad('a resource without id, name or type', status);
  }
  const properties = value['properties'];
  if (
    !isOptionalString(value['description']) ||
    !isOptionalString(value['state']) ||
    !isOptionalString(value['syncStatus']) ||
    !isOptionalString(value['deploymentId']) ||
    !(properties === undefined || properties === null || isObject(properties))
  ) {
    throw bad('a resource with fields of unexpected types', status);
  }
  return value as unknown as Vra8Resource;
}

export function decodeActions(value: unknown, status: number): Vra8Action[] {
  if (!Array.isArray(value)) throw bad('an action list that is not an array', status);
  return value.map((action) => decodeAction(action, status));
}

export function decodeAction(value: unknown, status: number): Vra8Action {
  if (!isObject(value) || typeof value['id'] !== 'string') {
    throw bad('a resource action without an id', status);
  }
  const schema = value['schema'];
  if (
    !isOptionalString(value['name']) ||
    !isOptionalString(value['displayName']) ||
    !isOptionalString(value['description']) ||
    !isOptionalString(value['actionType']) ||
    !isOptionalBoolean(value['valid']) ||
    !(schema === undefined || schema === null || isObject(schema))
  ) {
    throw bad('a resource action with fields of unexpected types', status);
  }
  return value as unknown as Vra8Action;
}

/**
 * Day-2 actions as vRA 7 operations: RESOURCE_ACTION is an ACTION,
 * RESOURCE_EXTENSION an EXTENSION (not requestable, as in vRA 7); an action
 * vRA 8 marks not `valid` for the resource's current state is left out.
 */
function toOperations(actions: Vra8Action[]): WireResourceOperation[] {
  return actions
    .filter((action) => action.valid !== false)
    .map((action) => ({
      id: action.id,
      name: action.displayName ?? action.name ?? action.id,
      description: action.description ?? null,
      type: action.actionType === 'RESOURCE_EXTENSION' ? 'EXTENSION' : 'ACTION',
      vra8: action,
    }));
}

/** Plain JSON values as vRA 7 typed literals, which `plainEntries` unwraps again. */
function entriesOf(properties: Json | undefined): Array<{ key: string; value: Json }> {
  return Object.entries(properties ?? {}).map(([key, value]) => ({
    key,
    value: { type: typeof value, value },
  }));
}

/**
 * Resource ↔ deployment resource: a vRA 8 `DeploymentResource` (a machine,
 * a network, ...) is a catalog resource; `type` is its resource type
 * (`Cloud.vSphere.Machine`), `syncStatus`/`state` its status, `properties`
 * its data.
 */
export function toResource(resource: Vra8Resource, actions: Vra8Action[]): WireCatalogResource {
  return {
    id: resource.id,
    name: resource.name,
    resourceTypeRef: { id: resource.type, label: null },
    status: resource.state ?? resource.syncStatus ?? null,
    description: resource.description ?? null,
    operations: toOperations(actions),
    resourceData: { entries: entriesOf(resource.properties) },
    vra8: resource,
  };
}

/** The template of a day-2 action: vRA 7's form, `data` the action's input defaults. */
export function toActionTemplate(
  target: { kind: 'resource' | 'deployment'; id: string },
  action: Vra8Action,
): WireRequestTemplate {
  return {
    type: 'vra8.ResourceActionRequest',
    target: target.kind,
    resourceId: target.id,
    actionId: action.id,
    description: null,
    reasons: null,
    data: inputDefaults(action.schema),
    schema: action.schema ?? { type: 'object', properties: {} },
  };
}

export function decodeBlueprint(value: unknown, status: number): Vra8Blueprint {
  if (!isObject(value) || typeof value['id'] !== 'string') {
    throw bad('a blueprint without an id', status);
  }
  const total = value['totalVersions'];
  if (
    !isOptionalString(value['name']) ||
    !isOptionalString(value['projectId']) ||
    !(total === undefined || total === null || isWhole(total))
  ) {
    throw bad('a blueprint with fields of unexpected types', status);
  }
  return value as unknown as Vra8Blueprint;
}

/** A `BlueprintVersion`'s `version` (listBlueprintVersionsUsingGET). */
export function decodeVersion(value: unknown, status: number): string {
  if (!isObject(value) || typeof value['version'] !== 'string') {
    throw bad('a blueprint version without a version', status);
  }
  return value['version'];
}

export function decodeSource(value: unknown, status: number): Vra8CatalogSource {
  if (
    !isObject(value) ||
    typeof value['id'] !== 'string' ||
    typeof value['name'] !== 'string' ||
    typeof value['typeId'] !== 'string' ||
    !isObject(value['config'])
  ) {
    throw bad('a catalog source without id, name, typeId or config', status);
  }
  return value as unknown as Vra8CatalogSource;
}

/** `POST /iaas/api/login` answer: `AuthResponse {token, tokenType}` (vra-iaas.json). */
export function decodeAuthResponse(value: unknown, status: number): string {
  if (!isObject(value) || typeof value['token'] !== 'string' || value['token'] === '') {
    throw bad('a login answer without a token', status);
  }
  return value['token'];
}

/** The CSP login answer: its `refresh_token` is what `/iaas/api/login` takes. */
export function decodeCspLogin(value: unknown, status: number): string {
  if (
    !isObject(value) ||
    typeof value['refresh_token'] !== 'string' ||
    value['refresh_token'] === ''
  ) {
    throw bad('a CSP login answer without a refresh_token', status);
  }
  return value['refresh_token'];
}

/** vRA 8's bearer lasts 8 hours (VMware's "Get your access token" for vRA 8) when it says nothing itself. */
export const defaultTokenLifetimeMs = 8 * 60 * 60 * 1000;

/**
 * When a bearer expires: its JWT `exp` when it is a JWT (CSP access tokens
 * are), else `now` + 8 hours. Nothing in the token is trusted beyond this:
 * the token is only ever sent back to the appliance that issued it.
 */
export function tokenExpiry(token: string, now: number): number {
  const payload = token.split('.')[1];
  if (payload !== undefined) {
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
      const exp = isObject(claims) ? claims['exp'] : undefined;
      if (typeof exp === 'number' && Number.isFinite(exp) && exp * 1000 > now) return exp * 1000;
    } catch {
      // not a JWT: the default lifetime
    }
  }
  return now + defaultTokenLifetimeMs;
}
