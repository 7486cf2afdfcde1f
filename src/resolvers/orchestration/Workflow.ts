import { UpstreamBadResponseError } from '../../errors.ts';
import type { WorkflowResolvers } from '../../generated/graphql.ts';
import type { GatewayContext } from '../../context.ts';
import type { WorkflowRecord, WorkflowSummaryFields } from '../../upstreams/vro/wire.ts';

/**
 * Category, type and permissions are only in the query result; a workflow
 * read by id (detail) gets them through one `conditions=id=` lookup, made only
 * when one of them is selected.
 */
async function summaryOf(
  workflow: WorkflowRecord,
  { loaders }: GatewayContext,
): Promise<WorkflowSummaryFields | null> {
  if (workflow.summary !== undefined) return workflow.summary;
  return (await loaders.vro.workflowSummaryById.load(workflow.id))?.summary ?? null;
}

async function requiredSummaryOf(
  workflow: WorkflowRecord,
  context: GatewayContext,
): Promise<WorkflowSummaryFields> {
  const summary = await summaryOf(workflow, context);
  if (summary === null) {
    throw new UpstreamBadResponseError('vro', 'a workflow query that does not list this workflow');
  }
  return summary;
}

/** Parameters are only in the detail: one GET per workflow per request, when selected. */
async function parametersOf(workflow: WorkflowRecord, { loaders }: GatewayContext) {
  const parameters =
    workflow.parameters ?? (await loaders.vro.workflowById.load(workflow.id)).parameters;
  return parameters ?? { input: [], output: [] };
}

export const Workflow: WorkflowResolvers = {
  categoryName: async (workflow, _args, context) =>
    (await summaryOf(workflow, context))?.categoryName ?? null,
  categoryHref: async (workflow, _args, context) =>
    (await summaryOf(workflow, context))?.categoryHref ?? null,
  type: async (workflow, _args, context) => (await summaryOf(workflow, context))?.type ?? null,
  canExecute: async (workflow, _args, context) =>
    (await requiredSummaryOf(workflow, context)).canExecute,
  canEdit: async (workflow, _args, context) => (await requiredSummaryOf(workflow, context)).canEdit,
  inputParameters: async (workflow, _args, context) =>
    (await parametersOf(workflow, context)).input,
  outputParameters: async (workflow, _args, context) =>
    (await parametersOf(workflow, context)).output,
};
