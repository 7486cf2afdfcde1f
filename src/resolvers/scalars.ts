import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';
import { BadUserInputError } from '../errors.ts';
import { isMeasured, jsonBoundsProblem } from '../json-bounds.ts';

/** An input within the bounds of json-bounds.ts, so that every consumer of a JSON input may recurse safely. */
function boundedInput(value: unknown): unknown {
  const problem = jsonBoundsProblem(value);
  if (problem !== undefined) throw new BadUserInputError(`Refused ${problem}.`);
  return value;
}

/**
 * The last check before a value is written: resolvers measure upstream values
 * with `upstreamJson` (which names the upstream); anything else is measured
 * here, so that no value can make the response unwritable.
 */
function boundedOutput(value: unknown): unknown {
  if (isMeasured(value)) return value;
  const problem = jsonBoundsProblem(value);
  if (problem !== undefined) {
    throw new GraphQLError(`An upstream sent ${problem}.`, {
      extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
    });
  }
  return value;
}

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value: object, array, string, number, boolean or null.',
  serialize: boundedOutput,
  parseValue: boundedInput,
  parseLiteral: (ast, variables) => boundedInput(valueFromASTUntyped(ast, variables)),
});

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function toIso(value: unknown): string {
  const date =
    value instanceof Date
      ? value
      : typeof value === 'number'
        ? new Date(value)
        : typeof value === 'string' && isoInstant.test(value)
          ? new Date(value)
          : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new BadUserInputError(`Not an ISO 8601 instant: ${JSON.stringify(value)}`);
  }
  return date.toISOString();
}

export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant in ISO 8601, always in UTC, e.g. `2014-12-19T21:43:46.833Z`.',
  serialize: toIso,
  parseValue: toIso,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new BadUserInputError('A DateTime is written as a string.');
    return toIso(ast.value);
  },
});

export const FileScalar = new GraphQLScalarType({
  name: 'File',
  description: 'A file sent with the GraphQL multipart request spec (`multipart/form-data`).',
  serialize: () => {
    throw new Error('A File is only an input.');
  },
  parseValue: (value) => {
    if (!isFileLike(value)) {
      throw new BadUserInputError('Expected a file sent with the GraphQL multipart request spec.');
    }
    return value;
  },
  parseLiteral: () => {
    throw new BadUserInputError('A file is sent as a multipart part, not written in the query.');
  },
});

/**
 * yoga's multipart parser hands over a @whatwg-node ponyfill File, which is
 * not an instance of Node's Blob: accept anything with a File's shape.
 */
function isFileLike(value: unknown): value is File {
  if (value instanceof Blob) return true;
  if (typeof value !== 'object' || value === null) return false;
  const file = value as Partial<Record<'stream' | 'size' | 'name', unknown>>;
  return (
    typeof file.stream === 'function' &&
    typeof file.size === 'number' &&
    typeof file.name === 'string'
  );
}
