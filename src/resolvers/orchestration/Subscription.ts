import type { SubscriptionResolvers } from '../../generated/graphql.ts';
import type { ExecutionEvent } from '../../upstreams/vro/execution-watcher.ts';
import { checkVroId } from '../../inputs/orchestration.ts';

export const Subscription: SubscriptionResolvers = {
  workflowExecution: {
    subscribe(_parent, { workflowId, executionId }, { clients, call }) {
      checkVroId(workflowId, 'workflowId');
      checkVroId(executionId, 'executionId');
      return clients.vro.watchExecution(call, workflowId, executionId);
    },
    // An upstream error while polling becomes this event's error; the watch then ends.
    resolve(event: ExecutionEvent) {
      if ('error' in event) throw event.error;
      return event.execution;
    },
  },
};
