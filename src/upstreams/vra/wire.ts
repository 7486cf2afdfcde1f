/**
 * Wire shapes of the catalog service (vRA 7) and its identity service, as they
 * travel: the records of the catalog schema (its mappers), which vRA 8's
 * client fills too (v8/decode.ts). A record vRA 8 filled carries the vRA 8
 * object it was made from as `vra8` (typed in v8/wire.ts; absent from vRA 7's
 * records): a vRA 8-only field is typed and checked in that room and
 * resolved as `record.vra8?.<field> ?? null`, and changes nothing here.
 */
import type * as v8 from './v8/wire.ts';

/** `POST /identity/api/tokens` request body. */
export interface WireTokenRequest {
  username: string;
  password: string;
  tenant: string;
}

/** `POST /identity/api/tokens` answer: the bearer token is `id`. */
export interface WireToken {
  expires: string;
  id: string;
  tenant?: string;
}

/** One entry of a vRA error body `{"errors":[...]}`. */
export interface WireErrorEntry {
  code?: number | string | null;
  source?: unknown;
  message?: string | null;
  /** Often a stack-ish text; never shown to clients. */
  systemMessage?: string | null;
  moreInfoUrl?: string | null;
}

export interface WireErrorBody {
  errors: WireErrorEntry[];
}

/** `metadata` of a paged list; `number` is 1-based. */
export interface WirePageMetadata {
  size: number;
  totalElements: number;
  totalPages: number;
  number: number;
  offset: number;
}

export interface WirePage<T> {
  links?: unknown[];
  content: T[];
  metadata: WirePageMetadata;
}

export interface WireProvider {
  '@type'?: string;
  id: string;
  name: string;
  providerTypeId: string;
}

/** `{id, label}` reference as found in catalog items; the label may be null or absent. */
export interface WireRef {
  id: string;
  label?: string | null;
}

export interface WireOrganization {
  tenantRef: string;
  tenantLabel: string;
  subtenantRef?: string | null;
  subtenantLabel?: string | null;
}

export interface WireProviderBinding {
  bindingId: string;
  providerRef?: WireRef | null;
}

/** A catalog item as `GET /catalog-service/api/catalogItems` lists it (only what the gateway reads is typed). */
export interface WireCatalogItem {
  '@type'?: string;
  id: string;
  name: string;
  description?: string | null;
  iconId?: string | null;
  catalogItemTypeRef?: WireRef | null;
  outputResourceTypeRef?: WireRef | null;
  organization?: WireOrganization | null;
  providerBinding?: WireProviderBinding | null;
  status?: string | null;
  forms?: unknown;
  vra8?: v8.Vra8CatalogItem;
}

/** Body of `PUT .../provider/providers/{providerId}/catalogItems/{bindingId}` (docs/upstreams.md, vRA). */
export interface WireProviderCatalogItem {
  id: string;
  name: string;
  description: string;
  iconId: string;
  catalogItemTypeId: string;
  organization: {
    tenantRef: string;
    tenantLabel: string;
    subtenantRef: string | null;
    subtenantLabel: string | null;
  };
  outputResourceTypeId: string;
  forms: Record<string, unknown> | null;
}

/** An `entitledOrganizations[]` entry: `subtenantRef` is the business group id. */
export interface WireEntitledOrganization {
  tenantRef?: string | null;
  tenantLabel?: string | null;
  subtenantRef?: string | null;
  subtenantLabel?: string | null;
}

/** `GET /catalog-service/api/consumer/entitledCatalogItemViews`: one `ConsumerEntitledCatalogItemView`. */
export interface WireEntitledCatalogItemView {
  '@type'?: string;
  catalogItemId: string;
  name: string;
  description?: string | null;
  entitledOrganizations?: WireEntitledOrganization[] | null;
  catalogItemTypeRef?: WireRef | null;
  outputResourceTypeRef?: WireRef | null;
  vra8?: v8.Vra8CatalogItem;
}

/**
 * A request template (`CatalogItemProvisioningRequest` or `CatalogResourceRequest`):
 * kept as vRA sent it, edited and POSTed back whole.
 */
export type WireRequestTemplate = Record<string, unknown>;

export type WireRequestState =
  | 'UNSUBMITTED'
  | 'SUBMITTED'
  | 'PENDING_PRE_APPROVAL'
  | 'IN_PROGRESS'
  | 'PENDING_POST_APPROVAL'
  | 'SUCCESSFUL'
  | 'PARTIALLY_SUCCESSFUL'
  | 'FAILED'
  | 'REJECTED';

/** `GET /catalog-service/api/consumer/requests/{id}` (only what the gateway reads is typed). */
export interface WireCatalogRequest {
  '@type'?: string;
  id: string;
  requestNumber?: number | null;
  state: WireRequestState;
  phase?: string | null;
  /** Absent in some answers: then derived from the state. */
  final?: boolean | null;
  description?: string | null;
  requestedFor?: string | null;
  dateCreated?: string | null;
  dateCompleted?: string | null;
  catalogItemRef?: WireRef | null;
  vra8?: v8.Vra8Request;
}

/** A resource's `operations[]` entry; only `ACTION`s can be requested. */
export interface WireResourceOperation {
  id: string;
  name: string;
  description?: string | null;
  type?: string | null;
  vra8?: v8.Vra8Action;
}

/** A typed literal of `resourceData.entries[].value`: `{type, value}`, `complex` with `values`, `multiple` with `items`. */
export type WireLiteral = Record<string, unknown> | null;

/** `GET .../requests/{id}/resources` item and `GET .../resources/{id}`. */
export interface WireCatalogResource {
  '@type'?: string;
  id: string;
  name: string;
  resourceTypeRef?: WireRef | null;
  status?: string | null;
  description?: string | null;
  operations?: WireResourceOperation[] | null;
  resourceData?: { entries?: Array<{ key: string; value: WireLiteral }> | null } | null;
  vra8?: v8.Vra8Resource;
}
