/**
 * Wire shapes of vRA 8 (Aria Automation), from the Swagger files of
 * vmware/vra-sdk-go (swagger/vra-catalog-deployment.json,
 * vra-blueprint.json, vra-iaas.json); only what the gateway reads is typed.
 */

/** `POST /csp/gateway/am/api/login?access_token` body (CSP; not in the Swagger files). */
export interface Vra8CspLogin {
  username: string;
  password: string;
  /** The identity source the user name is looked up in (an AD domain, `System Domain`). */
  domain?: string;
}

/** `POST /iaas/api/login` body: `CspLoginSpecification` (vra-iaas.json, retrieveAuthToken). */
export interface Vra8LoginSpecification {
  refreshToken: string;
}

/** A Spring page (`PageOfCatalogItem`, `PageOfRequest`, ...): `number` is 0-based. */
export interface Vra8Page<T> {
  content: T[];
  totalElements: number;
  totalPages?: number;
  number?: number;
  size?: number;
  numberOfElements?: number;
}

/** `ResourceReference` */
export interface Vra8Reference {
  id?: string;
  name?: string;
  description?: string;
  version?: string;
}

/** `CatalogItem` (vra-catalog-deployment.json): required id, name, projectIds, type. */
export interface Vra8CatalogItem {
  id: string;
  name: string;
  description?: string;
  iconId?: string;
  externalId?: string;
  projectIds: string[];
  projects?: Vra8Reference[];
  /** The request inputs' JSON schema (a simplified JSON Schema). */
  schema?: Record<string, unknown>;
  sourceId?: string;
  sourceName?: string;
  type: Vra8Reference;
}

/** `CatalogItemRequest` (requestCatalogItemInstancesUsingPOST_1). */
export interface Vra8CatalogItemRequest {
  deploymentName: string;
  projectId: string;
  inputs: Record<string, unknown>;
  reason?: string;
  version?: string;
}

/** `CatalogItemRequestResponse`: the answer is an array of these. */
export interface Vra8CatalogItemRequestResponse {
  deploymentId: string;
  deploymentName?: string;
}

export type Vra8RequestStatus =
  | 'CREATED'
  | 'PENDING'
  | 'INITIALIZATION'
  | 'CHECKING_APPROVAL'
  | 'APPROVAL_PENDING'
  | 'USER_INTERACTION_PENDING'
  | 'INPROGRESS'
  | 'COMPLETION'
  | 'APPROVAL_REJECTED'
  | 'ABORTED'
  | 'SUCCESSFUL'
  | 'FAILED';

/** `Request` (deployment request; getRequestUsingGET_2). */
export interface Vra8Request {
  id: string;
  status?: Vra8RequestStatus;
  /** Required by the spec; a missing one is tolerated (the contract's fields are nullable). */
  name?: string | null;
  actionId?: string | null;
  catalogItemId?: string | null;
  deploymentId?: string | null;
  requestedBy?: string | null;
  createdAt?: string | null;
  completedAt?: string | null;
  details?: string | null;
}

/** `Deployment` (getDeploymentByIdV3UsingGET). */
export interface Vra8Deployment {
  id: string;
  name: string;
  description?: string;
  status?: string;
  projectId?: string;
  catalogItemId?: string;
}

/** `DeploymentResource` / `Resource`. */
export interface Vra8Resource {
  id: string;
  name: string;
  type: string;
  description?: string;
  state?: string;
  syncStatus?: string;
  deploymentId?: string | null;
  properties?: Record<string, unknown>;
}

/** `ResourceAction` (getResourceActionsUsingGET_5, getDeploymentActionsUsingGET_2). */
export interface Vra8Action {
  id: string;
  name?: string;
  displayName?: string;
  description?: string;
  actionType?: 'RESOURCE_ACTION' | 'RESOURCE_EXTENSION';
  valid?: boolean;
  schema?: Record<string, unknown>;
}

/** `ResourceActionRequest` */
export interface Vra8ActionRequest {
  actionId: string;
  inputs: Record<string, unknown>;
  reason?: string;
}

/** `Blueprint` (vra-blueprint.json, getBlueprintUsingGET_1). */
export interface Vra8Blueprint {
  id: string;
  name?: string | null;
  projectId?: string | null;
  totalVersions?: number | null;
}

/** `BlueprintVersionRequest` (createBlueprintVersionUsingPOST_1). */
export interface Vra8BlueprintVersionRequest {
  version: string;
  description?: string;
  changeLog?: string;
  release?: boolean;
}

/** `CatalogSource` (postUsingPOST_2): `typeId` `com.vmw.blueprint` imports a project's released blueprints. */
export interface Vra8CatalogSource {
  id?: string;
  name: string;
  typeId: string;
  config: Record<string, unknown>;
  projectId?: string;
  description?: string;
}

/** `Entitlement` (createEntitlementUsingPOST_2): content sharing of a source or item with a project. */
export interface Vra8Entitlement {
  id?: string;
  projectId: string;
  definition: { id: string; type: string; name?: string };
}
