import { nullOnNotFound } from '../../errors.ts';
import type { ExecutionState, WorkflowExecutionResolvers } from '../../generated/graphql.ts';
import type { WireExecutionState } from '../../upstreams/vro/wire.ts';

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

export const WorkflowExecution: WorkflowExecutionResolvers = {
  state: (execution) => states[execution.state],
  workflow: (execution, _args, { loaders }) =>
    nullOnNotFound(() => loaders.vro.workflowById.load(execution.workflowId)),
};
