import { nullOnNotFound } from '../../errors.ts';
import type { ExecutionState, WorkflowExecutionResolvers } from '../../generated/graphql.ts';
import type { GatewayContext } from '../../context.ts';
import type { ExecutionRecord, WireExecutionState } from '../../upstreams/vro/wire.ts';

const states: Record<WireExecutionState, ExecutionState> = {
  initializing: 'INITIALIZING',
  running: 'RUNNING',
  waiting: 'WAITING',
  'waiting-signal': 'WAITING_SIGNAL',
  suspended: 'SUSPENDED',
  completed: 'COMPLETED',
  failed: 'FAILED',
  canceled: 'CANCELED',
};

/** Parameters and exception of a run read from a history come from its detail: one GET per run per request. */
function fromDetail<T>(
  execution: ExecutionRecord,
  { loaders }: GatewayContext,
  pick: (detail: ExecutionRecord) => T,
): T | Promise<T> {
  if (execution.listed !== true) return pick(execution);
  return loaders.vro.executionById
    .load({ workflowId: execution.workflowId, executionId: execution.id })
    .then(pick);
}

export const WorkflowExecution: WorkflowExecutionResolvers = {
  state: (execution) => states[execution.state],
  inputParameters: (execution, _args, context) =>
    fromDetail(execution, context, (detail) => detail.inputParameters),
  outputParameters: (execution, _args, context) =>
    fromDetail(execution, context, (detail) => detail.outputParameters),
  exception: (execution, _args, context) =>
    fromDetail(execution, context, (detail) => detail.exception),
  logs: (execution, _args, { loaders }) =>
    nullOnNotFound(() =>
      loaders.vro.executionLogs.load({
        workflowId: execution.workflowId,
        executionId: execution.id,
      }),
    ),
  workflow: (execution, _args, { loaders }) =>
    nullOnNotFound(() => loaders.vro.workflowById.load(execution.workflowId)),
};
