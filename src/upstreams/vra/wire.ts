/** Wire shapes of the catalog service (vRA 7) and its identity service, as they travel. */

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
}

/** Body of `PUT .../provider/providers/{providerId}/catalogItems/{bindingId}` (interfaces.md section 2). */
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
