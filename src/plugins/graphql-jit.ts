import { useGraphQlJit } from '@envelop/graphql-jit';
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Queries and mutations run compiled by graphql-jit (GRAPHQL_JIT): each
 * document is compiled once (kept with yoga's cached document) and then runs
 * without graphql-js's per-field interpretation. Subscriptions, and
 * operations whose variables graphql-js would refuse, run through graphql-js
 * as before: the contract codes of unfit variables are read from
 * graphql-js's messages (`error-codes.ts`), and yoga's subscriptions are
 * graphql-js's. graphql-jit gives a resolver's error no field nodes, and its
 * `locations` are lost when yoga rewrites the error: the nodes are put back
 * from the document, so that answers are the same either way.
 */
export function graphqlJit(): Plugin {
  const jit = useGraphQlJit(
    {},
    {
      enableIf: ({ schema, document, operationName, variableValues }) => {
        const operation = getOperationAST(document, operationName);
        if (operation === null || operation === undefined) return false;
        if (operation.operation === OperationTypeNode.SUBSCRIPTION) return false;
        const declared = operation.variableDefinitions ?? [];
        if (declared.length === 0) return true;
        const coerced = getVariableValues(schema, declared, variableValues ?? {});
        return coerced.errors === undefined;
      },
    },
  ) as unknown as Plugin;
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(jit);
    },
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return;
          const { errors } = result as ExecutionResult;
          if (errors === undefined || !errors.some(lacksLocations)) return;
          const document = args.document as DocumentNode;
          const operationName = args.operationName as string | null | undefined;
          setResult(withLocations(result, document, operationName ?? undefined));
        },
      };
    },
  };
}

/**
 * graphql-jit's errors carry no field nodes: where yoga rewrites an error
 * (masking), it keeps the nodes, not the locations.
 */
const lacksLocations = (error: GraphQLError): boolean =>
  error.nodes === undefined || error.nodes.length === 0;

function withLocations(
  result: ExecutionResult,
  document: DocumentNode,
  operationName: string | undefined,
): ExecutionResult {
  const operation = getOperationAST(document, operationName);
  if (operation === null || operation === undefined) return result;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  const errors = result.errors?.map((error) => {
    if (!lacksLocations(error) || error.path === undefined) return error;
    const nodes = fieldsAt(operation.selectionSet, error.path, fragments);
    if (nodes.length === 0) return error;
    return new GraphQLError(error.message, {
      nodes,
      path: error.path,
      originalError: error.originalError ?? null,
      extensions: error.extensions,
    });
  });
  return { ...result, ...(errors === undefined ? {} : { errors }) };
}

/** The field nodes a response path leads to (list indices skipped, fragments followed). */
function fieldsAt(
  root: SelectionSetNode,
  path: ReadonlyArray<string | number>,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): FieldNode[] {
  let sets: SelectionSetNode[] = [root];
  let found: FieldNode[] = [];
  for (const key of path) {
    if (typeof key === 'number') continue;
    found = sets.flatMap((set) => fieldsNamed(set, key, fragments));
    sets = found.flatMap((field) => (field.selectionSet === undefined ? [] : [field.selectionSet]));
  }
  return found;
}

function fieldsNamed(
  set: SelectionSetNode,
  responseKey: string,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): FieldNode[] {
  return set.selections.flatMap((selection): FieldNode[] => {
    if (selection.kind === Kind.FIELD) {
      return (selection.alias ?? selection.name).value === responseKey ? [selection] : [];
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      return fieldsNamed(selection.selectionSet, responseKey, fragments);
    }
    const fragment = fragments.get(selection.name.value);
    return fragment === undefined ? [] : fieldsNamed(fragment.selectionSet, responseKey, fragments);
  });
}
