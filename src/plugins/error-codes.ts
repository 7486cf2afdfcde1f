import { GraphQLError, type ExecutionResult } from 'graphql';
import { usePayloadFormatter, type Plugin } from 'graphql-yoga';

/**
 * graphql-js reports a variable that does not fit its type without a code.
 * An unknown enum value (a descriptive tag import phrase, say) is a schema
 * violation like the same value written inline: GRAPHQL_VALIDATION_FAILED;
 * any other unfit variable is BAD_USER_INPUT.
 */
function codeFor(error: GraphQLError): string {
  if (/^Variable "\$[^"]+" got invalid value/.test(error.message)) {
    return /does not exist in "[^"]+" enum/.test(error.message)
      ? 'GRAPHQL_VALIDATION_FAILED'
      : 'BAD_USER_INPUT';
  }
  return 'INTERNAL_SERVER_ERROR';
}

/** Gives every error in every result (subscriptions included) an `extensions.code`. */
export function errorCodes(): Plugin {
  return usePayloadFormatter((result: ExecutionResult) => {
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
}
