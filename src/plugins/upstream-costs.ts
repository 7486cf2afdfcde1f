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

/** The same cost for each of `fields`. */
function each(cost: FieldCost, fields: readonly string[]): Record<string, FieldCost> {
  return Object.fromEntries(fields.map((field) => [field, cost]));
}

export const upstreamCosts: Readonly<Record<string, FieldCost>> = {
  // orchestration (vRO)
  ...each({ calls: 1 }, [
    'Query.workflows',
    'Query.workflow',
    'Query.workflowExecution',
    'WorkflowExecution.workflow',
    'Mutation.importPackage',
    'Workflow.form',
    'WorkflowExecution.logs',
  ]),
  ...each(workflowSummary, [
    'Workflow.categoryName',
    'Workflow.categoryHref',
    'Workflow.type',
    'Workflow.canExecute',
    'Workflow.canEdit',
  ]),
  ...each(workflowDetail, ['Workflow.inputParameters', 'Workflow.outputParameters']),
  ...each(executionDetail, [
    'WorkflowExecution.inputParameters',
    'WorkflowExecution.outputParameters',
    'WorkflowExecution.exception',
  ]),
  // start, then read the execution back
  'Mutation.runWorkflow': { calls: 2 },
  // one poller per execution serves every subscriber
  'Subscription.workflowExecution': { calls: 1 },
  // a one-run probe, then the newest-first window
  'Workflow.executions': { calls: 2 },
  // cancel, then read the run back
  'Mutation.cancelWorkflowExecution': { calls: 2 },

  // catalog (vRA)
  ...each({ calls: 1 }, [
    'Query.provider',
    'EntitledCatalogItem.requestTemplate',
    // the same template read (one per item per request, shared with requestTemplate)
    'EntitledCatalogItem.form',
    'Query.catalogRequest',
    'Query.catalogResource',
    'CatalogRequest.resources',
  ]),
  ...each(providerList, ['Query.providerByName', 'CatalogItem.provider']),
  // a window of a list may span two pages
  ...each({ calls: 2 }, [
    'Query.providers',
    'Query.catalogItems',
    'Query.entitledCatalogItems',
    'Query.catalogRequests',
  ]),
  // the template, the submission, the request read back (when vRA answers only a Location)
  ...each({ calls: 3 }, ['Mutation.requestCatalogItem', 'Mutation.requestResourceAction']),
  // one poller per request and credential serves every subscriber
  'Subscription.catalogRequest': { calls: 1 },
  // the registration; an answer without a body adds the read-back by binding
  'Mutation.registerCatalogItem': { calls: 2 },
  // the provider list, then the registration (and its read-back)
  'Mutation.publishBlueprint': { calls: 3 },

  // network (NSX)
  ...each({ calls: 1 }, [
    'Query.ipSets',
    'Query.ipSet',
    'Query.services',
    'Query.service',
    'Query.applicationFirewall',
    'Mutation.deleteIpSet',
    'Mutation.deleteService',
    'Mutation.addVirtualServer',
    'Mutation.forceSyncEdge',
  ]),
  // create, read back
  ...each({ calls: 2 }, ['Mutation.createIpSet', 'Mutation.createService']),
  // read the revision, write, read back
  ...each({ calls: 3 }, ['Mutation.updateIpSet', 'Mutation.updateService']),
  // read the ruleset, write it, read it back (a concurrent change adds a read and a write)
  ...each({ calls: 3 }, [
    'Mutation.updateApplicationFirewall',
    'Mutation.addApplicationFirewallRule',
    'Mutation.removeApplicationFirewallRule',
  ]),
  // NSX-v 6.x; the first edge call of a process may add the edge API version probe
  ...each({ calls: 1 }, [
    'Query.edges',
    'Query.edge',
    'Edge.virtualServers',
    'Query.distributedFirewall',
    'Query.firewallSection',
    'Mutation.deleteVirtualServer',
  ]),
  // read the current server, write it over
  'Mutation.updateVirtualServer': { calls: 2 },
  // read the section, write the rule against its generation number, read it back
  ...each({ calls: 3 }, ['Mutation.addFirewallSectionRule', 'Mutation.removeFirewallSectionRule']),

  // who is calling (vRA identity); what the gateway knows of the appliances
  ...each({ calls: 0 }, ['Query.viewer', 'Query.appliances']),
  // the token request
  'Mutation.signIn': { calls: 1 },
  // the token's deletion
  'Mutation.signOut': { calls: 1 },
};
