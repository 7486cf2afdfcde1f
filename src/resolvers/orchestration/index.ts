import type { Resolvers } from '../../generated/graphql.ts';
import { Mutation } from './Mutation.ts';
import { ParameterValue } from './ParameterValue.ts';
import { Query } from './Query.ts';
import { Subscription } from './Subscription.ts';
import { Workflow } from './Workflow.ts';
import { WorkflowExecution } from './WorkflowExecution.ts';

/** Resolvers of the orchestration domain (vRO). */
export const orchestrationResolvers: Resolvers = {
  Query,
  Mutation,
  Subscription,
  Workflow,
  WorkflowExecution,
  ParameterValue,
};
