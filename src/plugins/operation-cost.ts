import {
  getOperationAST,
  GraphQLError,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLSchema,
} from 'graphql';
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
  // yoga hands the same document for the same text: without variables, its estimate is fixed
  const fixed = new WeakMap<DocumentNode, Map<string | null | undefined, number | undefined>>();
  const estimateOf = (args: ExecutionArgs, costOf: CostOf): number | undefined => {
    const compute = () =>
      estimateUpstreamCalls(
        args.schema,
        args.document,
        { operationName: args.operationName, variables: args.variableValues },
        costOf,
      );
    const operation = getOperationAST(args.document, args.operationName);
    if ((operation?.variableDefinitions?.length ?? 0) > 0) return compute();
    let byName = fixed.get(args.document);
    if (byName === undefined) {
      byName = new Map();
      fixed.set(args.document, byName);
    }
    if (!byName.has(args.operationName)) byName.set(args.operationName, compute());
    return byName.get(args.operationName);
  };
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
    const estimate = estimateOf(args, costOf);
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
