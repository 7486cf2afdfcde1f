import { jsonBoundsProblem } from '../../json-bounds.ts';
import { bad, isObject, isOptionalString, isRef } from './decode.ts';
import type {
  WireCatalogRequest,
  WireCatalogResource,
  WireEntitledCatalogItemView,
  WireRequestState,
  WireRequestTemplate,
  WireResourceOperation,
} from './wire.ts';

/** Decoders of the vRA 7 consumer API (entitled items, templates, requests, resources). */

const requestStates: ReadonlySet<string> = new Set<WireRequestState>([
  'UNSUBMITTED',
  'SUBMITTED',
  'PENDING_PRE_APPROVAL',
  'IN_PROGRESS',
  'PENDING_POST_APPROVAL',
  'SUCCESSFUL',
  'PARTIALLY_SUCCESSFUL',
  'FAILED',
  'REJECTED',
]);

/** States after which vRA changes a request no more (when its answer lacks `final`). */
const finalStates: ReadonlySet<WireRequestState> = new Set<WireRequestState>([
  'SUCCESSFUL',
  'PARTIALLY_SUCCESSFUL',
  'FAILED',
  'REJECTED',
]);

export function isFinalRequest(request: WireCatalogRequest): boolean {
  return typeof request.final === 'boolean' ? request.final : finalStates.has(request.state);
}

/** True when a followed request changed in a way its subscribers are told about: state, phase or final. */
export function requestChanged(
  previous: WireCatalogRequest | undefined,
  next: WireCatalogRequest,
): boolean {
  return (
    previous === undefined ||
    previous.state !== next.state ||
    (previous.phase ?? null) !== (next.phase ?? null) ||
    isFinalRequest(previous) !== isFinalRequest(next)
  );
}

function isOptionalNumber(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'number' && Number.isFinite(value))
  );
}

export function decodeEntitledCatalogItemView(
  value: unknown,
  status: number,
): WireEntitledCatalogItemView {
  if (
    !isObject(value) ||
    typeof value['catalogItemId'] !== 'string' ||
    typeof value['name'] !== 'string'
  ) {
    throw bad('an entitled catalog item without catalogItemId or name', status);
  }
  const organizations = value['entitledOrganizations'];
  const organizationsOk =
    organizations === undefined ||
    organizations === null ||
    (Array.isArray(organizations) &&
      organizations.every(
        (o) =>
          isObject(o) &&
          isOptionalString(o['subtenantRef']) &&
          isOptionalString(o['subtenantLabel']),
      ));
  if (
    !isOptionalString(value['description']) ||
    !isRef(value['catalogItemTypeRef']) ||
    !isRef(value['outputResourceTypeRef']) ||
    !organizationsOk
  ) {
    throw bad('an entitled catalog item with fields of unexpected types', status);
  }
  return value as unknown as WireEntitledCatalogItemView;
}

/** A request template: any JSON object whose `data`, when present, is an object. */
export function decodeRequestTemplate(value: unknown, status: number): WireRequestTemplate {
  if (!isObject(value)) throw bad('a request template that is not an object', status);
  const data = value['data'];
  if (data !== undefined && data !== null && !isObject(data)) {
    throw bad('a request template whose data is not an object', status);
  }
  // It is answered as JSON and sent back edited: within the bounds of every JSON value.
  const problem = jsonBoundsProblem(value);
  if (problem !== undefined) throw bad(`a request template: ${problem}`, status);
  return value;
}

export function decodeCatalogRequest(value: unknown, status: number): WireCatalogRequest {
  if (!isObject(value) || typeof value['id'] !== 'string' || value['id'] === '') {
    throw bad('a catalog request without an id', status);
  }
  // vRA 7 also has finer states (PRE_APPROVED, PROVIDER_COMPLETED, ...) whose
  // phase is one of the contract's; those are read as their phase.
  const state = requestStates.has(String(value['state'])) ? value['state'] : value['phase'];
  if (typeof state !== 'string' || !requestStates.has(state)) {
    throw bad('a catalog request without a known state', status);
  }
  const final = value['final'];
  if (
    !isOptionalNumber(value['requestNumber']) ||
    !isOptionalString(value['phase']) ||
    !(final === undefined || final === null || typeof final === 'boolean') ||
    !isOptionalString(value['description']) ||
    !isOptionalString(value['requestedFor']) ||
    !isOptionalString(value['dateCreated']) ||
    !isOptionalString(value['dateCompleted']) ||
    !isRef(value['catalogItemRef'])
  ) {
    throw bad('a catalog request with fields of unexpected types', status);
  }
  return (state === value['state'] ? value : { ...value, state }) as unknown as WireCatalogRequest;
}

function isOperation(value: unknown): value is WireResourceOperation {
  return (
    isObject(value) &&
    typeof value['id'] === 'string' &&
    typeof value['name'] === 'string' &&
    isOptionalString(value['description']) &&
    isOptionalString(value['type'])
  );
}

export function decodeCatalogResource(value: unknown, status: number): WireCatalogResource {
  if (!isObject(value) || typeof value['id'] !== 'string' || typeof value['name'] !== 'string') {
    throw bad('a resource without id or name', status);
  }
  const operations = value['operations'];
  const data = value['resourceData'];
  const entries = isObject(data) ? data['entries'] : undefined;
  const entriesOk =
    entries === undefined ||
    entries === null ||
    (Array.isArray(entries) &&
      entries.every(
        (e) =>
          isObject(e) &&
          typeof e['key'] === 'string' &&
          (e['value'] === null || e['value'] === undefined || isObject(e['value'])),
      ));
  if (
    !isRef(value['resourceTypeRef']) ||
    !isOptionalString(value['status']) ||
    !isOptionalString(value['description']) ||
    !(
      operations === undefined ||
      operations === null ||
      (Array.isArray(operations) && operations.every(isOperation))
    ) ||
    !(data === undefined || data === null || isObject(data)) ||
    !entriesOk
  ) {
    throw bad('a resource with fields of unexpected types', status);
  }
  return value as unknown as WireCatalogResource;
}

/**
 * The id of a request vRA just created: from the body when it holds one, else
 * the last segment of the `Location` header (201 with an empty body).
 */
export function createdRequestId(
  body: string,
  location: string | undefined,
  status: number,
): { id: string; request: WireCatalogRequest | undefined } {
  if (body.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body) as unknown;
    } catch {
      parsed = undefined;
    }
    if (isObject(parsed) && typeof parsed['id'] === 'string' && parsed['id'] !== '') {
      return { id: parsed['id'], request: decodeCatalogRequest(parsed, status) };
    }
  }
  const segment = (location ?? '')
    .split(/[?#]/)[0]
    ?.split('/')
    .filter((s) => s !== '')
    .at(-1);
  if (segment === undefined || segment === '') {
    throw bad('a created request without an id in its body or Location', status);
  }
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    throw bad('a created request with a malformed Location', status);
  }
  return { id, request: undefined };
}
