import { nullOnNotFound } from '../../errors.ts';
import type { QueryResolvers } from '../../generated/graphql.ts';
import { buildConditions } from '../../upstreams/vro/conditions.ts';
import { checkVroId, checkWorkflowFilter } from '../../inputs/orchestration.ts';
import { connectionWindow, toConnection } from '../connection.ts';

export const Query: QueryResolvers = {
  async workflows(_parent, { filter, first, after }, { clients, loaders, call }) {
    const { offset: startIndex, size: maxResult } = connectionWindow('workflows', first, after);
    const conditions = buildConditions(checkWorkflowFilter(filter));
    const page = await clients.vro.queryWorkflows(call, { conditions, maxResult, startIndex });
    const workflows = page.workflows.slice(0, maxResult);
    loaders.vro.primeSummaries(workflows);
    return toConnection('workflows', startIndex, { items: workflows, totalCount: page.total });
  },

  workflow(_parent, { id }, { loaders }) {
    checkVroId(id, 'id');
    return nullOnNotFound(() => loaders.vro.workflowById.load(id));
  },

  workflowExecution(_parent, { workflowId, executionId }, { clients, call }) {
    checkVroId(workflowId, 'workflowId');
    checkVroId(executionId, 'executionId');
    return nullOnNotFound(() => clients.vro.getExecution(call, workflowId, executionId));
  },
};
