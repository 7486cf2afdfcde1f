/* eslint-disable */
import * as types from './graphql.js';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
  '\n  query PortalViewer {\n    viewer {\n      name\n      via\n      tenant\n      scopes\n      expiresAt\n    }\n  }\n': typeof types.PortalViewerDocument;
  '\n  mutation PortalSignIn($username: String!, $password: String!, $tenant: String) {\n    signIn(username: $username, password: $password, tenant: $tenant) {\n      name\n      via\n      tenant\n      scopes\n      expiresAt\n    }\n  }\n': typeof types.PortalSignInDocument;
  '\n  mutation PortalSignOut {\n    signOut\n  }\n': typeof types.PortalSignOutDocument;
  '\n  query PortalEntitledItems {\n    viewer {\n      name\n    }\n    entitledCatalogItems(first: 20) {\n      nodes {\n        id\n        name\n        description\n        businessGroups {\n          id\n          name\n        }\n        form {\n          fields {\n            name\n            label\n            description\n            type\n            required\n            readOnly\n            defaultValue\n            choices {\n              value\n              label\n            }\n            minimum\n            maximum\n            minLength\n            maxLength\n            pattern\n            group\n          }\n        }\n      }\n    }\n  }\n': typeof types.PortalEntitledItemsDocument;
  '\n  query PortalMyRequests {\n    viewer {\n      name\n    }\n    catalogRequests(first: 8) {\n      totalCount\n      nodes {\n        id\n        requestNumber\n        state\n        description\n        catalogItemId\n        dateCreated\n      }\n    }\n  }\n': typeof types.PortalMyRequestsDocument;
  '\n  mutation PortalRequestItem($input: RequestCatalogItemInput!) {\n    requestCatalogItem(input: $input) {\n      request {\n        id\n        requestNumber\n        state\n        phase\n      }\n    }\n  }\n': typeof types.PortalRequestItemDocument;
  '\n  subscription PortalFollowRequest($id: ID!) {\n    catalogRequest(id: $id) {\n      id\n      requestNumber\n      state\n      phase\n      final\n      dateCompleted\n    }\n  }\n': typeof types.PortalFollowRequestDocument;
  '\n  query PortalRequestResources($id: ID!) {\n    catalogRequest(id: $id) {\n      id\n      state\n      resources {\n        id\n        name\n        resourceType\n        status\n        data\n        actions {\n          id\n          name\n          description\n        }\n      }\n    }\n  }\n': typeof types.PortalRequestResourcesDocument;
  '\n  mutation PortalRunAction($input: RequestResourceActionInput!) {\n    requestResourceAction(input: $input) {\n      request {\n        id\n        requestNumber\n        state\n        phase\n      }\n    }\n  }\n': typeof types.PortalRunActionDocument;
  '\n  query PortalWorkflows($nameContains: String) {\n    viewer {\n      name\n    }\n    workflows(filter: { nameContains: $nameContains }, first: 30) {\n      nodes {\n        id\n        name\n        categoryName\n      }\n    }\n  }\n': typeof types.PortalWorkflowsDocument;
  '\n  query PortalWorkflowForm($id: ID!) {\n    workflow(id: $id) {\n      id\n      name\n      description\n      form {\n        fields {\n          name\n          type\n          label\n          description\n          required\n          hidden\n          step\n          group\n          choices\n          defaultValue\n        }\n      }\n      executions(first: 5) {\n        totalCount\n        nodes {\n          id\n          state\n          startDate\n          startedBy\n        }\n      }\n    }\n  }\n': typeof types.PortalWorkflowFormDocument;
  '\n  query PortalRecentRuns($id: ID!) {\n    workflow(id: $id) {\n      id\n      executions(first: 5) {\n        totalCount\n        nodes {\n          id\n          state\n          startDate\n          startedBy\n        }\n      }\n    }\n  }\n': typeof types.PortalRecentRunsDocument;
  '\n  mutation PortalRunWorkflow($id: ID!, $inputs: [WorkflowParameterInput!]) {\n    runWorkflow(workflowId: $id, inputs: $inputs) {\n      execution {\n        id\n        state\n      }\n    }\n  }\n': typeof types.PortalRunWorkflowDocument;
  '\n  subscription PortalFollowRun($workflowId: ID!, $executionId: ID!) {\n    workflowExecution(workflowId: $workflowId, executionId: $executionId) {\n      id\n      state\n      endDate\n      exception\n      outputParameters {\n        name\n        type\n        value\n      }\n    }\n  }\n': typeof types.PortalFollowRunDocument;
  '\n  query PortalRunLogs($workflowId: ID!, $executionId: ID!) {\n    workflowExecution(workflowId: $workflowId, executionId: $executionId) {\n      id\n      logs {\n        severity\n        timestamp\n        message\n      }\n    }\n  }\n': typeof types.PortalRunLogsDocument;
  '\n  mutation PortalCancelRun($workflowId: ID!, $executionId: ID!) {\n    cancelWorkflowExecution(workflowId: $workflowId, executionId: $executionId) {\n      id\n      state\n    }\n  }\n': typeof types.PortalCancelRunDocument;
};
const documents: Documents = {
  '\n  query PortalViewer {\n    viewer {\n      name\n      via\n      tenant\n      scopes\n      expiresAt\n    }\n  }\n':
    types.PortalViewerDocument,
  '\n  mutation PortalSignIn($username: String!, $password: String!, $tenant: String) {\n    signIn(username: $username, password: $password, tenant: $tenant) {\n      name\n      via\n      tenant\n      scopes\n      expiresAt\n    }\n  }\n':
    types.PortalSignInDocument,
  '\n  mutation PortalSignOut {\n    signOut\n  }\n': types.PortalSignOutDocument,
  '\n  query PortalEntitledItems {\n    viewer {\n      name\n    }\n    entitledCatalogItems(first: 20) {\n      nodes {\n        id\n        name\n        description\n        businessGroups {\n          id\n          name\n        }\n        form {\n          fields {\n            name\n            label\n            description\n            type\n            required\n            readOnly\n            defaultValue\n            choices {\n              value\n              label\n            }\n            minimum\n            maximum\n            minLength\n            maxLength\n            pattern\n            group\n          }\n        }\n      }\n    }\n  }\n':
    types.PortalEntitledItemsDocument,
  '\n  query PortalMyRequests {\n    viewer {\n      name\n    }\n    catalogRequests(first: 8) {\n      totalCount\n      nodes {\n        id\n        requestNumber\n        state\n        description\n        catalogItemId\n        dateCreated\n      }\n    }\n  }\n':
    types.PortalMyRequestsDocument,
  '\n  mutation PortalRequestItem($input: RequestCatalogItemInput!) {\n    requestCatalogItem(input: $input) {\n      request {\n        id\n        requestNumber\n        state\n        phase\n      }\n    }\n  }\n':
    types.PortalRequestItemDocument,
  '\n  subscription PortalFollowRequest($id: ID!) {\n    catalogRequest(id: $id) {\n      id\n      requestNumber\n      state\n      phase\n      final\n      dateCompleted\n    }\n  }\n':
    types.PortalFollowRequestDocument,
  '\n  query PortalRequestResources($id: ID!) {\n    catalogRequest(id: $id) {\n      id\n      state\n      resources {\n        id\n        name\n        resourceType\n        status\n        data\n        actions {\n          id\n          name\n          description\n        }\n      }\n    }\n  }\n':
    types.PortalRequestResourcesDocument,
  '\n  mutation PortalRunAction($input: RequestResourceActionInput!) {\n    requestResourceAction(input: $input) {\n      request {\n        id\n        requestNumber\n        state\n        phase\n      }\n    }\n  }\n':
    types.PortalRunActionDocument,
  '\n  query PortalWorkflows($nameContains: String) {\n    viewer {\n      name\n    }\n    workflows(filter: { nameContains: $nameContains }, first: 30) {\n      nodes {\n        id\n        name\n        categoryName\n      }\n    }\n  }\n':
    types.PortalWorkflowsDocument,
  '\n  query PortalWorkflowForm($id: ID!) {\n    workflow(id: $id) {\n      id\n      name\n      description\n      form {\n        fields {\n          name\n          type\n          label\n          description\n          required\n          hidden\n          step\n          group\n          choices\n          defaultValue\n        }\n      }\n      executions(first: 5) {\n        totalCount\n        nodes {\n          id\n          state\n          startDate\n          startedBy\n        }\n      }\n    }\n  }\n':
    types.PortalWorkflowFormDocument,
  '\n  query PortalRecentRuns($id: ID!) {\n    workflow(id: $id) {\n      id\n      executions(first: 5) {\n        totalCount\n        nodes {\n          id\n          state\n          startDate\n          startedBy\n        }\n      }\n    }\n  }\n':
    types.PortalRecentRunsDocument,
  '\n  mutation PortalRunWorkflow($id: ID!, $inputs: [WorkflowParameterInput!]) {\n    runWorkflow(workflowId: $id, inputs: $inputs) {\n      execution {\n        id\n        state\n      }\n    }\n  }\n':
    types.PortalRunWorkflowDocument,
  '\n  subscription PortalFollowRun($workflowId: ID!, $executionId: ID!) {\n    workflowExecution(workflowId: $workflowId, executionId: $executionId) {\n      id\n      state\n      endDate\n      exception\n      outputParameters {\n        name\n        type\n        value\n      }\n    }\n  }\n':
    types.PortalFollowRunDocument,
  '\n  query PortalRunLogs($workflowId: ID!, $executionId: ID!) {\n    workflowExecution(workflowId: $workflowId, executionId: $executionId) {\n      id\n      logs {\n        severity\n        timestamp\n        message\n      }\n    }\n  }\n':
    types.PortalRunLogsDocument,
  '\n  mutation PortalCancelRun($workflowId: ID!, $executionId: ID!) {\n    cancelWorkflowExecution(workflowId: $workflowId, executionId: $executionId) {\n      id\n      state\n    }\n  }\n':
    types.PortalCancelRunDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query PortalViewer {\n    viewer {\n      name\n      via\n      tenant\n      scopes\n      expiresAt\n    }\n  }\n',
): typeof import('./graphql.js').PortalViewerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  mutation PortalSignIn($username: String!, $password: String!, $tenant: String) {\n    signIn(username: $username, password: $password, tenant: $tenant) {\n      name\n      via\n      tenant\n      scopes\n      expiresAt\n    }\n  }\n',
): typeof import('./graphql.js').PortalSignInDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  mutation PortalSignOut {\n    signOut\n  }\n',
): typeof import('./graphql.js').PortalSignOutDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query PortalEntitledItems {\n    viewer {\n      name\n    }\n    entitledCatalogItems(first: 20) {\n      nodes {\n        id\n        name\n        description\n        businessGroups {\n          id\n          name\n        }\n        form {\n          fields {\n            name\n            label\n            description\n            type\n            required\n            readOnly\n            defaultValue\n            choices {\n              value\n              label\n            }\n            minimum\n            maximum\n            minLength\n            maxLength\n            pattern\n            group\n          }\n        }\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalEntitledItemsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query PortalMyRequests {\n    viewer {\n      name\n    }\n    catalogRequests(first: 8) {\n      totalCount\n      nodes {\n        id\n        requestNumber\n        state\n        description\n        catalogItemId\n        dateCreated\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalMyRequestsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  mutation PortalRequestItem($input: RequestCatalogItemInput!) {\n    requestCatalogItem(input: $input) {\n      request {\n        id\n        requestNumber\n        state\n        phase\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalRequestItemDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  subscription PortalFollowRequest($id: ID!) {\n    catalogRequest(id: $id) {\n      id\n      requestNumber\n      state\n      phase\n      final\n      dateCompleted\n    }\n  }\n',
): typeof import('./graphql.js').PortalFollowRequestDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query PortalRequestResources($id: ID!) {\n    catalogRequest(id: $id) {\n      id\n      state\n      resources {\n        id\n        name\n        resourceType\n        status\n        data\n        actions {\n          id\n          name\n          description\n        }\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalRequestResourcesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  mutation PortalRunAction($input: RequestResourceActionInput!) {\n    requestResourceAction(input: $input) {\n      request {\n        id\n        requestNumber\n        state\n        phase\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalRunActionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query PortalWorkflows($nameContains: String) {\n    viewer {\n      name\n    }\n    workflows(filter: { nameContains: $nameContains }, first: 30) {\n      nodes {\n        id\n        name\n        categoryName\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalWorkflowsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query PortalWorkflowForm($id: ID!) {\n    workflow(id: $id) {\n      id\n      name\n      description\n      form {\n        fields {\n          name\n          type\n          label\n          description\n          required\n          hidden\n          step\n          group\n          choices\n          defaultValue\n        }\n      }\n      executions(first: 5) {\n        totalCount\n        nodes {\n          id\n          state\n          startDate\n          startedBy\n        }\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalWorkflowFormDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query PortalRecentRuns($id: ID!) {\n    workflow(id: $id) {\n      id\n      executions(first: 5) {\n        totalCount\n        nodes {\n          id\n          state\n          startDate\n          startedBy\n        }\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalRecentRunsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  mutation PortalRunWorkflow($id: ID!, $inputs: [WorkflowParameterInput!]) {\n    runWorkflow(workflowId: $id, inputs: $inputs) {\n      execution {\n        id\n        state\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalRunWorkflowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  subscription PortalFollowRun($workflowId: ID!, $executionId: ID!) {\n    workflowExecution(workflowId: $workflowId, executionId: $executionId) {\n      id\n      state\n      endDate\n      exception\n      outputParameters {\n        name\n        type\n        value\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalFollowRunDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query PortalRunLogs($workflowId: ID!, $executionId: ID!) {\n    workflowExecution(workflowId: $workflowId, executionId: $executionId) {\n      id\n      logs {\n        severity\n        timestamp\n        message\n      }\n    }\n  }\n',
): typeof import('./graphql.js').PortalRunLogsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  mutation PortalCancelRun($workflowId: ID!, $executionId: ID!) {\n    cancelWorkflowExecution(workflowId: $workflowId, executionId: $executionId) {\n      id\n      state\n    }\n  }\n',
): typeof import('./graphql.js').PortalCancelRunDocument;

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
