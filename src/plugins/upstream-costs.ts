/**
 * The upstream calls each schema field makes: the one table the estimate of
 * an operation's upstream calls reads (operation-cost.ts). Add a row for
 * every new field that reaches an upstream (a field of Query, Mutation or
 * Subscription, or any field whose resolver takes the context); a unit test
 * fails until it is there. A field without a row costs nothing, except those:
 * they count one call each (per item of the lists above them). A field whose
 * resolver takes the context but calls no upstream gets `{ calls: 0 }`.
 */
export interface FieldCost {
  /** Calls the field makes each time it resolves (the usual path: no retry, no conflict). */
  calls: number;
  /**
   * `item` (default): once per object it is selected on, so it is multiplied
   * by the lists above it. `operation`: batched by a per-request loader into
   * the same calls however many objects select it (e.g. one provider list
   * read for a whole page of catalog items).
   */
  per?: 'item' | 'operation';
  /**
   * Fields that read through the same loader: selected together on one
   * object (per: 'operation': anywhere in the operation), they count once.
   */
  shares?: string;
  /**
   * Fields (`Type.field`) whose records already carry what this field reads:
   * below them it costs nothing (e.g. a workflow of a query result has its
   * category; one read by id has its parameters).
   */
  carriedBy?: readonly string[];
  /**
   * Items a list field without `first` is counted as, for the per-item fields
   * below it (default `assumedListSize`).
   */
  items?: number;
}

/** What a list with neither `first` nor `items` counts as, for the per-item fields below it. */
export const assumedListSize = 50;

/** What a field of Query, Mutation or Subscription, or one whose resolver takes the context, costs without a row. */
export const defaultCost: FieldCost = { calls: 1 };

const workflowSummary: FieldCost = {
  calls: 1,
  shares: 'vro.workflowSummaryById',
  carriedBy: ['Query.workflows'],
};
const workflowDetail: FieldCost = {
  calls: 1,
  shares: 'vro.workflowById',
  carriedBy: ['Query.workflow', 'WorkflowExecution.workflow'],
};
/** Parameters and exception of a run listed in a history: its detail, one read per run. */
const executionDetail: FieldCost = {
  calls: 1,
  shares: 'vro.executionById',
  carriedBy: [
    'Query.workflowExecution',
    'Mutation.runWorkflow',
    'Mutation.cancelWorkflowExecution',
    'Subscription.workflowExecution',
  ],
};
/** The provider list, read once per request (and cached across requests). */
const providerList: FieldCost = { calls: 1, per: 'operation', shares: 'vra.providers' };

export const upstreamCosts: Readonly<Record<string, FieldCost>> = {
  // orchestration (vRO)
  'Query.workflows': { calls: 1 },
  'Query.workflow': { calls: 1 },
  'Query.workflowExecution': { calls: 1 },
  'Workflow.categoryName': workflowSummary,
  'Workflow.categoryHref': workflowSummary,
  'Workflow.type': workflowSummary,
  'Workflow.canExecute': workflowSummary,
  'Workflow.canEdit': workflowSummary,
  'Workflow.inputParameters': workflowDetail,
  'Workflow.outputParameters': workflowDetail,
  'WorkflowExecution.workflow': { calls: 1 },
  // start, then read the execution back
  'Mutation.runWorkflow': { calls: 2 },
  'Mutation.importPackage': { calls: 1 },
  // one poller per execution serves every subscriber
  'Subscription.workflowExecution': { calls: 1 },
  'Workflow.form': { calls: 1 },
  // a one-run probe, then the newest-first window
  'Workflow.executions': { calls: 2 },
  'WorkflowExecution.inputParameters': executionDetail,
  'WorkflowExecution.outputParameters': executionDetail,
  'WorkflowExecution.exception': executionDetail,
  'WorkflowExecution.logs': { calls: 1 },
  // cancel, then read the run back
  'Mutation.cancelWorkflowExecution': { calls: 2 },

  // catalog (vRA); a window of a list may span two pages
  'Query.providers': { calls: 2 },
  'Query.provider': { calls: 1 },
  'Query.providerByName': providerList,
  'Query.catalogItems': { calls: 2 },
  'CatalogItem.provider': providerList,
  'Query.entitledCatalogItems': { calls: 2 },
  'EntitledCatalogItem.requestTemplate': { calls: 1 },
  'Query.catalogRequest': { calls: 1 },
  'Query.catalogRequests': { calls: 2 },
  'Query.catalogResource': { calls: 1 },
  'CatalogRequest.resources': { calls: 1 },
  // the template, the submission, the request read back (when vRA answers only a Location)
  'Mutation.requestCatalogItem': { calls: 3 },
  'Mutation.requestResourceAction': { calls: 3 },
  // one poller per request and credential serves every subscriber
  'Subscription.catalogRequest': { calls: 1 },
  // the registration; an answer without a body adds the read-back by binding
  'Mutation.registerCatalogItem': { calls: 2 },
  // the provider list, then the registration (and its read-back)
  'Mutation.publishBlueprint': { calls: 3 },

  // network (NSX)
  'Query.ipSets': { calls: 1 },
  'Query.ipSet': { calls: 1 },
  'Query.services': { calls: 1 },
  'Query.service': { calls: 1 },
  'Query.applicationFirewall': { calls: 1 },
  // create, read back
  'Mutation.createIpSet': { calls: 2 },
  'Mutation.createService': { calls: 2 },
  // read the revision, write, read back
  'Mutation.updateIpSet': { calls: 3 },
  'Mutation.updateService': { calls: 3 },
  'Mutation.deleteIpSet': { calls: 1 },
  'Mutation.deleteService': { calls: 1 },
  'Mutation.addVirtualServer': { calls: 1 },
  'Mutation.forceSyncEdge': { calls: 1 },
  // read the ruleset, write it, read it back (a concurrent change adds a read and a write)
  'Mutation.updateApplicationFirewall': { calls: 3 },
  'Mutation.addApplicationFirewallRule': { calls: 3 },
  'Mutation.removeApplicationFirewallRule': { calls: 3 },
  // NSX-v 6.x; the first edge call of a process may add the edge API version probe
  'Query.edges': { calls: 1 },
  'Query.edge': { calls: 1 },
  'Edge.virtualServers': { calls: 1 },
  'Query.distributedFirewall': { calls: 1 },
  'Query.firewallSection': { calls: 1 },
  // read the current server, write it over
  'Mutation.updateVirtualServer': { calls: 2 },
  'Mutation.deleteVirtualServer': { calls: 1 },
  // read the section, write the rule against its generation number, read it back
  'Mutation.addFirewallSectionRule': { calls: 3 },
  'Mutation.removeFirewallSectionRule': { calls: 3 },

  // who is calling (vRA identity)
  'Query.viewer': { calls: 0 },
  // the token request
  'Mutation.signIn': { calls: 1 },
  // the token's deletion
  'Mutation.signOut': { calls: 1 },
};
