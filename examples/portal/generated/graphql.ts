/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> =
  T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** How a caller proved who they are. */
export type AuthMethod =
  /** No credential, where the gateway allows it. */
  | 'ANONYMOUS'
  /** A bearer JWT of the configured identity provider (`JWT_JWKS_URL`). */
  | 'JWT'
  /** Signed in with `signIn`: a session cookie, acting with the user's own vRA token. */
  | 'SESSION'
  /** A gateway token (`GATEWAY_TOKENS` or `GATEWAY_TOKENS_FILE`). */
  | 'TOKEN';

/** State of a catalog request, as vRA names it. */
export type CatalogRequestState =
  /** Failed (final). */
  | 'FAILED'
  /** Being carried out. */
  | 'IN_PROGRESS'
  /** Done with some parts failed (final). */
  | 'PARTIALLY_SUCCESSFUL'
  /** Done, waiting for an approval of what was built. */
  | 'PENDING_POST_APPROVAL'
  /** Waiting for an approval before it starts. */
  | 'PENDING_PRE_APPROVAL'
  /** Refused by an approver (final). */
  | 'REJECTED'
  /** Submitted, not yet started. */
  | 'SUBMITTED'
  /** Done (final). */
  | 'SUCCESSFUL'
  /** Saved, not yet submitted. */
  | 'UNSUBMITTED';

/** Lifecycle state of a workflow run; COMPLETED, FAILED and CANCELED are terminal. */
export type ExecutionState =
  /** Canceled (terminal). */
  | 'CANCELED'
  /** Finished successfully (terminal). */
  | 'COMPLETED'
  /** Finished with an error (terminal). */
  | 'FAILED'
  /** Being prepared. */
  | 'INITIALIZING'
  /** Running. */
  | 'RUNNING'
  /** Suspended. */
  | 'SUSPENDED'
  /** Waiting for user interaction. */
  | 'WAITING'
  /** Waiting for a signal or timer. */
  | 'WAITING_SIGNAL';

/** A value for one field of a request form. */
export type FormValueInput = {
  /** The field's `RequestFormField.name`. */
  name: string;
  /** The value, of the field's type; null sends no value (the appliance's default applies). */
  value?: unknown;
};

/**
 * A request of an entitled catalog item. The item's request template is read,
 * `data` is merged into the template's `data` (objects merged key by key, any
 * other value replaced) and the result is submitted.
 */
export type RequestCatalogItemInput = {
  /** Business group to request on behalf of; defaults to the template's. */
  businessGroupId?: string | null | undefined;
  /** The entitled catalog item to request. */
  catalogItemId: string;
  /**
   * Changes to the template's `data`, a JSON object, e.g.
   * `{ "machine2.vsphere": { "data": { "cpu": 2 } } }` on vRA 7 (on vRA 8,
   * the inputs: `{ "hostname": "web01" }`). Prefer `values`, which is the same on
   * both generations.
   */
  data?: unknown;
  /** vRA 8: the new deployment's name (default: the item's name and a short suffix). vRA 7: the request's description when `description` is unset. */
  deploymentName?: string | null | undefined;
  /** Free text shown with the request. */
  description?: string | null | undefined;
  /** Why the request is made (shown to approvers). */
  reasons?: string | null | undefined;
  /**
   * Values by `RequestFormField.name` of the item's `form`, checked against the
   * form before any call (`BAD_USER_INPUT` with `extensions.fields` naming each
   * wrong field), then placed into vRA 7's template data or sent as vRA 8's
   * inputs. Given with `data`, both apply, `values` last.
   */
  values?: Array<FormValueInput> | null | undefined;
};

/**
 * A request of an action on a resource: the action's template is read, `data`
 * merged into it as for `requestCatalogItem`, and the result submitted.
 */
export type RequestResourceActionInput = {
  /** The action to run (an id of the resource's `actions`). */
  actionId: string;
  /** Changes to the template's `data`, a JSON object. */
  data?: unknown;
  /** Free text shown with the request. */
  description?: string | null | undefined;
  /** Why the request is made (shown to approvers). */
  reasons?: string | null | undefined;
  /** The resource to act on. */
  resourceId: string;
};

/**
 * An input for `runWorkflow`. `type` is the vRO type name (string, number,
 * boolean, date, Array/string, Properties, SecureString, an SDK type such as
 * VC:VirtualMachine, ...), matched case-insensitively for the plain types; value
 * is checked against it before anything is sent.
 */
export type WorkflowParameterInput = {
  /** Parameter name, as declared by the workflow. */
  name: string;
  /** vRO type name. */
  type: string;
  /**
   * The value: a string, number or boolean for the plain types, an ISO 8601
   * string for `date`, an array for `Array/<type>`, an object for `Properties`,
   * `{ "id": "vcenter/vm-1" }` (or the id as a string) for SDK objects.
   */
  value?: unknown;
};

export type PortalViewerQueryVariables = Exact<{ [key: string]: never }>;

export type PortalViewerQuery = {
  viewer: {
    name: string;
    via: AuthMethod;
    tenant: string | null;
    scopes: Array<string>;
    expiresAt: string | null;
  } | null;
};

export type PortalSignInMutationVariables = Exact<{
  username: string;
  password: string;
  tenant?: string | null | undefined;
}>;

export type PortalSignInMutation = {
  signIn: {
    name: string;
    via: AuthMethod;
    tenant: string | null;
    scopes: Array<string>;
    expiresAt: string | null;
  };
};

export type PortalSignOutMutationVariables = Exact<{ [key: string]: never }>;

export type PortalSignOutMutation = { signOut: boolean };

export type PortalEntitledItemsQueryVariables = Exact<{ [key: string]: never }>;

export type PortalEntitledItemsQuery = {
  viewer: { name: string } | null;
  entitledCatalogItems: {
    nodes: Array<{
      id: string;
      name: string;
      description: string | null;
      businessGroups: Array<{ id: string; name: string | null }>;
      form: {
        fields: Array<{
          name: string;
          label: string | null;
          description: string | null;
          type: string;
          required: boolean;
          readOnly: boolean;
          defaultValue: unknown;
          minimum: number | null;
          maximum: number | null;
          minLength: number | null;
          maxLength: number | null;
          pattern: string | null;
          group: string | null;
          choices: Array<{ value: unknown; label: string | null }> | null;
        }>;
      } | null;
    }>;
  } | null;
};

export type PortalMyRequestsQueryVariables = Exact<{ [key: string]: never }>;

export type PortalMyRequestsQuery = {
  viewer: { name: string } | null;
  catalogRequests: {
    totalCount: number;
    nodes: Array<{
      id: string;
      requestNumber: number | null;
      state: CatalogRequestState;
      description: string | null;
      catalogItemId: string | null;
      dateCreated: string | null;
    }>;
  } | null;
};

export type PortalRequestItemMutationVariables = Exact<{
  input: RequestCatalogItemInput;
}>;

export type PortalRequestItemMutation = {
  requestCatalogItem: {
    request: {
      id: string;
      requestNumber: number | null;
      state: CatalogRequestState;
      phase: string | null;
    };
  };
};

export type PortalFollowRequestSubscriptionVariables = Exact<{
  id: string;
}>;

export type PortalFollowRequestSubscription = {
  catalogRequest: {
    id: string;
    requestNumber: number | null;
    state: CatalogRequestState;
    phase: string | null;
    final: boolean;
    dateCompleted: string | null;
  };
};

export type PortalRequestResourcesQueryVariables = Exact<{
  id: string;
}>;

export type PortalRequestResourcesQuery = {
  catalogRequest: {
    id: string;
    state: CatalogRequestState;
    resources: Array<{
      id: string;
      name: string;
      resourceType: string | null;
      status: string | null;
      data: unknown;
      actions: Array<{ id: string; name: string; description: string | null }>;
    }> | null;
  } | null;
};

export type PortalRunActionMutationVariables = Exact<{
  input: RequestResourceActionInput;
}>;

export type PortalRunActionMutation = {
  requestResourceAction: {
    request: {
      id: string;
      requestNumber: number | null;
      state: CatalogRequestState;
      phase: string | null;
    };
  };
};

export type PortalWorkflowsQueryVariables = Exact<{
  nameContains?: string | null | undefined;
}>;

export type PortalWorkflowsQuery = {
  viewer: { name: string } | null;
  workflows: { nodes: Array<{ id: string; name: string; categoryName: string | null }> } | null;
};

export type PortalWorkflowFormQueryVariables = Exact<{
  id: string;
}>;

export type PortalWorkflowFormQuery = {
  workflow: {
    id: string;
    name: string;
    description: string | null;
    form: {
      fields: Array<{
        name: string;
        type: string;
        label: string | null;
        description: string | null;
        required: boolean;
        hidden: boolean;
        step: string | null;
        group: string | null;
        choices: Array<unknown> | null;
        defaultValue: unknown;
      }>;
    } | null;
    executions: {
      totalCount: number;
      nodes: Array<{
        id: string;
        state: ExecutionState;
        startDate: string | null;
        startedBy: string | null;
      }>;
    } | null;
  } | null;
};

export type PortalRecentRunsQueryVariables = Exact<{
  id: string;
}>;

export type PortalRecentRunsQuery = {
  workflow: {
    id: string;
    executions: {
      totalCount: number;
      nodes: Array<{
        id: string;
        state: ExecutionState;
        startDate: string | null;
        startedBy: string | null;
      }>;
    } | null;
  } | null;
};

export type PortalRunWorkflowMutationVariables = Exact<{
  id: string;
  inputs?: Array<WorkflowParameterInput> | WorkflowParameterInput | null | undefined;
}>;

export type PortalRunWorkflowMutation = {
  runWorkflow: { execution: { id: string; state: ExecutionState } };
};

export type PortalFollowRunSubscriptionVariables = Exact<{
  workflowId: string;
  executionId: string;
}>;

export type PortalFollowRunSubscription = {
  workflowExecution: {
    id: string;
    state: ExecutionState;
    endDate: string | null;
    exception: string | null;
    outputParameters: Array<{ name: string; type: string; value: unknown }>;
  };
};

export type PortalRunLogsQueryVariables = Exact<{
  workflowId: string;
  executionId: string;
}>;

export type PortalRunLogsQuery = {
  workflowExecution: {
    id: string;
    logs: Array<{ severity: string; timestamp: string | null; message: string }> | null;
  } | null;
};

export type PortalCancelRunMutationVariables = Exact<{
  workflowId: string;
  executionId: string;
}>;

export type PortalCancelRunMutation = {
  cancelWorkflowExecution: { id: string; state: ExecutionState };
};

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const PortalViewerDocument = new TypedDocumentString(`
    query PortalViewer {
  viewer {
    name
    via
    tenant
    scopes
    expiresAt
  }
}
    `) as unknown as TypedDocumentString<PortalViewerQuery, PortalViewerQueryVariables>;
export const PortalSignInDocument = new TypedDocumentString(`
    mutation PortalSignIn($username: String!, $password: String!, $tenant: String) {
  signIn(username: $username, password: $password, tenant: $tenant) {
    name
    via
    tenant
    scopes
    expiresAt
  }
}
    `) as unknown as TypedDocumentString<PortalSignInMutation, PortalSignInMutationVariables>;
export const PortalSignOutDocument = new TypedDocumentString(`
    mutation PortalSignOut {
  signOut
}
    `) as unknown as TypedDocumentString<PortalSignOutMutation, PortalSignOutMutationVariables>;
export const PortalEntitledItemsDocument = new TypedDocumentString(`
    query PortalEntitledItems {
  viewer {
    name
  }
  entitledCatalogItems(first: 20) {
    nodes {
      id
      name
      description
      businessGroups {
        id
        name
      }
      form {
        fields {
          name
          label
          description
          type
          required
          readOnly
          defaultValue
          choices {
            value
            label
          }
          minimum
          maximum
          minLength
          maxLength
          pattern
          group
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<
  PortalEntitledItemsQuery,
  PortalEntitledItemsQueryVariables
>;
export const PortalMyRequestsDocument = new TypedDocumentString(`
    query PortalMyRequests {
  viewer {
    name
  }
  catalogRequests(first: 8) {
    totalCount
    nodes {
      id
      requestNumber
      state
      description
      catalogItemId
      dateCreated
    }
  }
}
    `) as unknown as TypedDocumentString<PortalMyRequestsQuery, PortalMyRequestsQueryVariables>;
export const PortalRequestItemDocument = new TypedDocumentString(`
    mutation PortalRequestItem($input: RequestCatalogItemInput!) {
  requestCatalogItem(input: $input) {
    request {
      id
      requestNumber
      state
      phase
    }
  }
}
    `) as unknown as TypedDocumentString<
  PortalRequestItemMutation,
  PortalRequestItemMutationVariables
>;
export const PortalFollowRequestDocument = new TypedDocumentString(`
    subscription PortalFollowRequest($id: ID!) {
  catalogRequest(id: $id) {
    id
    requestNumber
    state
    phase
    final
    dateCompleted
  }
}
    `) as unknown as TypedDocumentString<
  PortalFollowRequestSubscription,
  PortalFollowRequestSubscriptionVariables
>;
export const PortalRequestResourcesDocument = new TypedDocumentString(`
    query PortalRequestResources($id: ID!) {
  catalogRequest(id: $id) {
    id
    state
    resources {
      id
      name
      resourceType
      status
      data
      actions {
        id
        name
        description
      }
    }
  }
}
    `) as unknown as TypedDocumentString<
  PortalRequestResourcesQuery,
  PortalRequestResourcesQueryVariables
>;
export const PortalRunActionDocument = new TypedDocumentString(`
    mutation PortalRunAction($input: RequestResourceActionInput!) {
  requestResourceAction(input: $input) {
    request {
      id
      requestNumber
      state
      phase
    }
  }
}
    `) as unknown as TypedDocumentString<PortalRunActionMutation, PortalRunActionMutationVariables>;
export const PortalWorkflowsDocument = new TypedDocumentString(`
    query PortalWorkflows($nameContains: String) {
  viewer {
    name
  }
  workflows(filter: {nameContains: $nameContains}, first: 30) {
    nodes {
      id
      name
      categoryName
    }
  }
}
    `) as unknown as TypedDocumentString<PortalWorkflowsQuery, PortalWorkflowsQueryVariables>;
export const PortalWorkflowFormDocument = new TypedDocumentString(`
    query PortalWorkflowForm($id: ID!) {
  workflow(id: $id) {
    id
    name
    description
    form {
      fields {
        name
        type
        label
        description
        required
        hidden
        step
        group
        choices
        defaultValue
      }
    }
    executions(first: 5) {
      totalCount
      nodes {
        id
        state
        startDate
        startedBy
      }
    }
  }
}
    `) as unknown as TypedDocumentString<PortalWorkflowFormQuery, PortalWorkflowFormQueryVariables>;
export const PortalRecentRunsDocument = new TypedDocumentString(`
    query PortalRecentRuns($id: ID!) {
  workflow(id: $id) {
    id
    executions(first: 5) {
      totalCount
      nodes {
        id
        state
        startDate
        startedBy
      }
    }
  }
}
    `) as unknown as TypedDocumentString<PortalRecentRunsQuery, PortalRecentRunsQueryVariables>;
export const PortalRunWorkflowDocument = new TypedDocumentString(`
    mutation PortalRunWorkflow($id: ID!, $inputs: [WorkflowParameterInput!]) {
  runWorkflow(workflowId: $id, inputs: $inputs) {
    execution {
      id
      state
    }
  }
}
    `) as unknown as TypedDocumentString<
  PortalRunWorkflowMutation,
  PortalRunWorkflowMutationVariables
>;
export const PortalFollowRunDocument = new TypedDocumentString(`
    subscription PortalFollowRun($workflowId: ID!, $executionId: ID!) {
  workflowExecution(workflowId: $workflowId, executionId: $executionId) {
    id
    state
    endDate
    exception
    outputParameters {
      name
      type
      value
    }
  }
}
    `) as unknown as TypedDocumentString<
  PortalFollowRunSubscription,
  PortalFollowRunSubscriptionVariables
>;
export const PortalRunLogsDocument = new TypedDocumentString(`
    query PortalRunLogs($workflowId: ID!, $executionId: ID!) {
  workflowExecution(workflowId: $workflowId, executionId: $executionId) {
    id
    logs {
      severity
      timestamp
      message
    }
  }
}
    `) as unknown as TypedDocumentString<PortalRunLogsQuery, PortalRunLogsQueryVariables>;
export const PortalCancelRunDocument = new TypedDocumentString(`
    mutation PortalCancelRun($workflowId: ID!, $executionId: ID!) {
  cancelWorkflowExecution(workflowId: $workflowId, executionId: $executionId) {
    id
    state
  }
}
    `) as unknown as TypedDocumentString<PortalCancelRunMutation, PortalCancelRunMutationVariables>;
