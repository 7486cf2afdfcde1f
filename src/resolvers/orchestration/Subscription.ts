import type { SubscriptionResolvers } from '../../generated/graphql.ts';
import type { ExecutionEvent } from '../../upstreams/vro/execution-watcher.ts';
import { assertVroId } from '../../upstreams/vro/ids.ts';

export const Subscription: SubscriptionResolvers = {
  workflowExecution: {
    subscribe(_parent, { workflowId, executionId }, { clients, call }) {
      assertVroId(workflowId, 'workflowId');
      assertVroId(executionId, 'executionId');
      return clients.vro.watchExecution(call, workflowId, executionId);
    },
    // An upstream error while polling becomes this event's error; the watch then ends.
    resolve(event: ExecutionEvent) {
      if ('error' in event) throw event.error;
      return event.execution;
    },
  },
};
