import { nullOnNotFound, UpstreamBadResponseError } from '../../errors.ts';
import type { WorkflowResolvers } from '../../generated/graphql.ts';
import type { GatewayContext } from '../../context.ts';
import type { WorkflowRecord, WorkflowSummaryFields } from '../../upstreams/vro/wire.ts';
import { connectionWindow, toConnection } from '../connection.ts';

/** The default page of `executions` (the schema's `first: Int = 20`, also for an explicit null). */
const executionsPageSize = 20;

type Parameters = NonNullable<WorkflowRecord['parameters']>;

/**
 * Category, type and permissions are only in the query result; a workflow
 * read by id (detail) gets them through one `conditions=id=` lookup, made only
 * when one of them is selected. A record from a query result answers at once,
 * with no promise per field.
 */
function fromSummary<T>(
  workflow: WorkflowRecord,
  { loaders }: GatewayContext,
  pick: (summary: WorkflowSummaryFields | null) => T,
): T | Promise<T> {
  if (workflow.summary !== undefined) return pick(workflow.summary);
  return loaders.vro.workflowSummaryById
    .load(workflow.id)
    .then((found) => pick(found?.summary ?? null));
}

function required(summary: WorkflowSummaryFields | null): WorkflowSummaryFields {
  if (summary === null) {
    throw new UpstreamBadResponseError('vro', 'a workflow query that does not list this workflow');
  }
  return summary;
}

/**
 * Parameters are only in the detail: at most one GET per workflow per
 * request, when selected, and none while the detail of the version the list
 * shows is kept.
 */
function fromParameters<T>(
  workflow: WorkflowRecord,
  { loaders }: GatewayContext,
  pick: (parameters: Parameters) => T,
): T | Promise<T> {
  if (workflow.parameters !== undefined) return pick(workflow.parameters);
  return loaders.vro.workflowAtVersion
    .load({ id: workflow.id, version: workflow.version })
    .then((detail) => pick(detail.parameters ?? { input: [], output: [] }));
}

export const Workflow: WorkflowResolvers = {
  categoryName: (workflow, _args, context) =>
    fromSummary(workflow, context, (summary) => summary?.categoryName ?? null),
  categoryHref: (workflow, _args, context) =>
    fromSummary(workflow, context, (summary) => summary?.categoryHref ?? null),
  type: (workflow, _args, context) =>
    fromSummary(workflow, context, (summary) => summary?.type ?? null),
  canExecute: (workflow, _args, context) =>
    fromSummary(workflow, context, (summary) => required(summary).canExecute),
  canEdit: (workflow, _args, context) =>
    fromSummary(workflow, context, (summary) => required(summary).canEdit),
  inputParameters: (workflow, _args, context) =>
    fromParameters(workflow, context, (parameters) => parameters.input),
  outputParameters: (workflow, _args, context) =>
    fromParameters(workflow, context, (parameters) => parameters.output),
  form: (workflow, _args, { loaders }) =>
    nullOnNotFound(() =>
      loaders.vro.formOfWorkflow.load({ id: workflow.id, version: workflow.version }),
    ),
  async executions(workflow, { first, after }, { loaders }) {
    const { offset, size } = connectionWindow('executions', first, after, executionsPageSize);
    const page = await loaders.vro.executionHistory.load({
      workflowId: workflow.id,
      offset,
      limit: size,
    });
    return toConnection('executions', offset, { items: page.executions, totalCount: page.total });
  },
};
