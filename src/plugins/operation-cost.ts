import { GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { costOfFields, estimateUpstreamCalls, type CostOf } from './estimate-upstream-calls.ts';

const refuse = (message: string): GraphQLError =>
  new GraphQLError(message, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { spec: true, status: 400 } },
  });

/**
 * Refuses, before any resolver runs, an operation whose estimated upstream
 * calls (estimate-upstream-calls.ts, with its variables applied) exceed
 * `limit` (MAX_UPSTREAM_CALLS_PER_OPERATION). The operations of one batched
 * request share the limit: their estimates add up, and an operation that
 * would take the sum over it is refused while the others run.
 */
export function operationCost(limit: number, resolvers: object): Plugin {
  const costs = new WeakMap<GraphQLSchema, CostOf>();
  const spentByRequest = new WeakMap<Request, number>();
  const check = ({
    args,
    setResultAndStopExecution,
  }: {
    args: ExecutionArgs;
    setResultAndStopExecution: (result: { errors: GraphQLError[] }) => void;
  }): void => {
    let costOf = costs.get(args.schema);
    if (costOf === undefined) {
      costOf = costOfFields(args.schema, resolvers as Record<string, unknown>);
      costs.set(args.schema, costOf);
    }
    const estimate = estimateUpstreamCalls(
      args.schema,
      args.document,
      { operationName: args.operationName, variables: args.variableValues },
      costOf,
    );
    if (estimate === undefined) return;
    const { request } = args.contextValue as { request?: Request };
    const spent = request === undefined ? 0 : (spentByRequest.get(request) ?? 0);
    if (spent + estimate <= limit) {
      if (request !== undefined) spentByRequest.set(request, spent + estimate);
      return;
    }
    const calls = `an estimated ${estimate} upstream call${estimate === 1 ? '' : 's'}`;
    setResultAndStopExecution({
      errors: [
        refuse(
          spent === 0
            ? `The operation would make ${calls}; at most ${limit} are allowed per operation (MAX_UPSTREAM_CALLS_PER_OPERATION). Ask for fewer items or split the operation.`
            : `The operation would make ${calls}; with the ${spent} of the batch's other operations that is ${spent + estimate}, over the limit of ${limit} per request (MAX_UPSTREAM_CALLS_PER_OPERATION).`,
        ),
      ],
    });
  };
  return { onExecute: check, onSubscribe: check };
}
