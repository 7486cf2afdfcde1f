/**
 * The portal's GraphQL operations. GraphQL Code Generator's client preset
 * reads them from this file (`npm run codegen`) and types each one in
 * generated/: `graphql` is the identity at run time, and its type (the
 * generated `gql.ts`) gives each document its result and variables types.
 */

/** @type {typeof import('./generated/gql.ts').graphql} */
const graphql = /** @type {any} */ ((/** @type {string} */ source) => source);

/** Who is calling: null without a session (or gateway token). */
export const Viewer = graphql(`
  query PortalViewer {
    viewer {
      name
      via
      tenant
      scopes
      expiresAt
    }
  }
`);

/** The password goes in the body's variables only: never in a URL, storage or log. */
export const SignIn = graphql(`
  mutation PortalSignIn($username: String!, $password: String!, $tenant: String) {
    signIn(username: $username, password: $password, tenant: $tenant) {
      name
      via
      tenant
      scopes
      expiresAt
    }
  }
`);

export const SignOut = graphql(`
  mutation PortalSignOut {
    signOut
  }
`);

/**
 * The caller's entitled items. `viewer` comes along: where
 * the gateway lets anonymous callers act as its service account, a session
 * that ended without a 401 (signed out in another tab) shows as a null viewer
 * rather than as the service account's catalog.
 */
export const EntitledItems = graphql(`
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
`);

/** The caller's latest catalog requests (vRA shows each user their own). */
export const MyRequests = graphql(`
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
`);

export const RequestItem = graphql(`
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
`);

export const FollowRequest = graphql(`
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
`);

export const RequestResources = graphql(`
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
`);

export const RunAction = graphql(`
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
`);

export const Workflows = graphql(`
  query PortalWorkflows($nameContains: String) {
    viewer {
      name
    }
    workflows(filter: { nameContains: $nameContains }, first: 30) {
      nodes {
        id
        name
        categoryName
      }
    }
  }
`);

export const WorkflowForm = graphql(`
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
`);

/** A workflow's latest runs, read again after a run, a cancel or a change of state. */
export const RecentRuns = graphql(`
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
`);

export const RunWorkflow = graphql(`
  mutation PortalRunWorkflow($id: ID!, $inputs: [WorkflowParameterInput!]) {
    runWorkflow(workflowId: $id, inputs: $inputs) {
      execution {
        id
        state
      }
    }
  }
`);

export const FollowRun = graphql(`
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
`);

export const RunLogs = graphql(`
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
`);

export const CancelRun = graphql(`
  mutation PortalCancelRun($workflowId: ID!, $executionId: ID!) {
    cancelWorkflowExecution(workflowId: $workflowId, executionId: $executionId) {
      id
      state
    }
  }
`);
