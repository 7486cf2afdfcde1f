/** Wire shapes of the catalog service (vRA). Placeholder. */

export interface WireProvider {
  id: string;
  name: string;
  providerTypeId: string;
}

export interface WireOrganization {
  tenantRef: string;
  tenantLabel: string;
  subtenantRef?: string | null;
  subtenantLabel?: string | null;
}

export interface WireCatalogItem {
  id: string;
  name: string;
}
