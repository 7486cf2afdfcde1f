import {
  coerceInputValue,
  getNamedType,
  getNullableType,
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  Kind,
  typeFromAST,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type VariableDefinitionNode,
} from 'graphql';
import { usePayloadFormatter, type Plugin } from 'graphql-yoga';

/** The input type at `path` (list indices, input fields) within `type`. */
function typeAt(
  type: GraphQLInputType,
  path: ReadonlyArray<string | number>,
): GraphQLInputType | undefined {
  let at: GraphQLInputType | undefined = type;
  for (const key of path) {
    const bare: GraphQLInputType | undefined = at === undefined ? undefined : getNullableType(at);
    if (typeof key === 'number') at = isListType(bare) ? bare.ofType : undefined;
    else at = isInputObjectType(bare) ? bare.getFields()[key]?.type : undefined;
  }
  return at;
}

/**
 * The codes of a variable's errors, in graphql-js's order, found by coercing
 * it again with graphql-js's `coerceInputValue`, which names the place of each
 * failure. An unknown enum value (a descriptive tag import phrase, say) is a
 * schema violation like the same value written inline:
 * GRAPHQL_VALIDATION_FAILED; any other unfit value (a required one missing or
 * null included) is BAD_USER_INPUT.
 */
function variableCodes(args: ExecutionArgs, definition: VariableDefinitionNode): string[] {
  const type = typeFromAST(args.schema, definition.type);
  if (type === undefined || !isInputType(type)) return [];
  const codes: string[] = [];
  const value = args.variableValues?.[definition.variable.name.value];
  coerceInputValue(value, type, (path, invalid) => {
    const at = typeAt(type, path);
    const unknownEnumValue = invalid != null && at !== undefined && isEnumType(getNamedType(at));
    codes.push(unknownEnumValue ? 'GRAPHQL_VALIDATION_FAILED' : 'BAD_USER_INPUT');
  });
  return codes;
}

/**
 * The code for each error that has none. graphql-js refuses a variable that
 * does not fit its type with an error on the variable's definition and no
 * code; any other error without one is a bug: INTERNAL_SERVER_ERROR.
 */
function codesFor(args: ExecutionArgs | undefined): (error: GraphQLError) => string {
  const byVariable = new Map<VariableDefinitionNode, string[]>();
  return (error) => {
    const node = error.nodes?.[0];
    if (node?.kind !== Kind.VARIABLE_DEFINITION) return 'INTERNAL_SERVER_ERROR';
    if (args === undefined) return 'BAD_USER_INPUT';
    let codes = byVariable.get(node);
    if (codes === undefined) {
      codes = variableCodes(args, node);
      byVariable.set(node, codes);
    }
    return codes.shift() ?? 'BAD_USER_INPUT';
  };
}

function recoded(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    path: error.path ?? null,
    originalError: error.originalError ?? null,
    extensions: { ...error.extensions, code },
  });
}

/**
 * Yoga refuses malformed HTTP requests (bad JSON, no query, a mutation over
 * GET, too many batched operations, a body over its size cap, an unknown
 * operation name) with codes of its own; the contract knows them as
 * BAD_USER_INPUT. The HTTP status yoga chose is kept.
 */
const yogaRequestCodes = new Set([
  'BAD_REQUEST',
  'REQUEST_ENTITY_TOO_LARGE',
  'OPERATION_RESOLUTION_FAILURE',
]);

/** The contract code an error carries, or the one the gateway gives it when it carries none. */
export function contractCodeOf(error: GraphQLError): string {
  const code = codeIn(error);
  if (typeof code !== 'string') return codesFor(undefined)(error);
  return yogaRequestCodes.has(code) ? 'BAD_USER_INPUT' : code;
}

/**
 * The code an error carries. An error in a result is not always a
 * GraphQLError: when the client goes away mid-execution, yoga puts the abort
 * reason (a plain Error, without extensions) among the errors.
 */
function codeIn(error: GraphQLError): unknown {
  return (error.extensions as GraphQLError['extensions'] | undefined)?.['code'];
}

function withContractCode(result: ExecutionResult): ExecutionResult {
  if (result.errors === undefined) return result;
  const errors = result.errors.map((error) => {
    const code = codeIn(error);
    return typeof code === 'string' && yogaRequestCodes.has(code)
      ? recoded(error, 'BAD_USER_INPUT')
      : error;
  });
  return { ...result, errors };
}

/** The result with a contract code on every error, or false when each has one. */
function withCodes(result: ExecutionResult, args: ExecutionArgs): ExecutionResult | false {
  const errors = result.errors;
  if (errors === undefined || errors.every((e) => typeof codeIn(e) === 'string')) {
    return false;
  }
  const codeOf = codesFor(args);
  return {
    ...result,
    errors: errors.map((error) =>
      typeof codeIn(error) === 'string' ? error : recoded(error, codeOf(error)),
    ),
  };
}

/** Gives every error in every result (subscriptions and refused requests included) a contract `extensions.code`. */
export function errorCodes(): Plugin {
  const formatter = usePayloadFormatter(withCodes) as unknown as Plugin;
  return {
    onPluginInit(payload) {
      payload.addPlugin(formatter);
    },
    onResultProcess(payload) {
      const { result } = payload;
      if (Symbol.asyncIterator in result) return;
      payload.setResult(
        Array.isArray(result) ? result.map(withContractCode) : withContractCode(result),
      );
    },
  };
}
