import { GraphQLError, type ExecutionResult } from 'graphql';
import { usePayloadFormatter, type Plugin } from 'graphql-yoga';

/**
 * graphql-js reports a variable that does not fit its type (or a required one
 * that is missing or null) without a code.
 * An unknown enum value (a descriptive tag import phrase, say) is a schema
 * violation like the same value written inline: GRAPHQL_VALIDATION_FAILED;
 * any other unfit variable is BAD_USER_INPUT.
 */
function codeFor(error: GraphQLError): string {
  if (
    /^Variable "\$[^"]+" (got invalid value|of required type "[^"]+" was not provided|of non-null type "[^"]+" must not be null)/.test(
      error.message,
    )
  ) {
    return /does not exist in "[^"]+" enum/.test(error.message)
      ? 'GRAPHQL_VALIDATION_FAILED'
      : 'BAD_USER_INPUT';
  }
  return 'INTERNAL_SERVER_ERROR';
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
  const code = error.extensions['code'];
  if (typeof code !== 'string') return codeFor(error);
  return yogaRequestCodes.has(code) ? 'BAD_USER_INPUT' : code;
}

function withContractCode(result: ExecutionResult): ExecutionResult {
  if (result.errors === undefined) return result;
  const errors = result.errors.map((error) => {
    const code = error.extensions['code'];
    if (typeof code !== 'string' || !yogaRequestCodes.has(code)) return error;
    return new GraphQLError(error.message, {
      nodes: error.nodes ?? null,
      source: error.source ?? null,
      positions: error.positions ?? null,
      path: error.path ?? null,
      originalError: error.originalError ?? null,
      extensions: { ...error.extensions, code: 'BAD_USER_INPUT' },
    });
  });
  return { ...result, errors };
}

/** Gives every error in every result (subscriptions and refused requests included) a contract `extensions.code`. */
export function errorCodes(): Plugin {
  const formatter = usePayloadFormatter((result: ExecutionResult) => {
    if (
      result.errors === undefined ||
      result.errors.every((e) => typeof e.extensions['code'] === 'string')
    ) {
      return false;
    }
    const errors = result.errors.map((error) =>
      typeof error.extensions['code'] === 'string'
        ? error
        : new GraphQLError(error.message, {
            nodes: error.nodes ?? null,
            source: error.source ?? null,
            positions: error.positions ?? null,
            path: error.path ?? null,
            originalError: error.originalError ?? null,
            extensions: { ...error.extensions, code: codeFor(error) },
          }),
    );
    return { ...result, errors };
  }) as unknown as Plugin;
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
