/**
 * The floor any GraphQL server costs in Node here: the same one-resolver
 * schema as `bare-yoga.ts`, served over node:http with no framework. The body
 * is read and JSON-parsed, the query text looked up in a cache of documents
 * parsed, validated and compiled once by graphql-jit, the compiled query run,
 * its result JSON-stringified and sent with `res.end`. No CORS, limits, logs,
 * metrics or error mapping. Bench only. Prints {"url":"http://127.0.0.1:<port>"}
 * once listening; SIGTERM stops it.
 *
 *   node test/bench/bare-lean.ts workflows <vRO base URL> <username> <password>
 *   node test/bench/bare-lean.ts providers <vRA base URL> <bearer token>
 */
import { createServer } from 'node:http';
import { parse, validate, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { createSchema } from 'graphql-yoga';
import { floorSchema } from './bare-schema.ts';
import { postedOperations, serveFloor } from './serve-floor.ts';

const { pool, definition } = floorSchema(process.argv.slice(2), 'bare-lean.ts');
const schema = createSchema(definition);
const compiled = new Map<string, CompiledQuery>();

function compiledFor(query: string): CompiledQuery | ExecutionResult {
  const known = compiled.get(query);
  if (known !== undefined) return known;
  const document = parse(query);
  const errors = validate(schema, document);
  if (errors.length > 0) return { errors };
  const result = compileQuery(schema, document);
  if (isCompiledQuery(result)) compiled.set(query, result);
  return result;
}

const server = createServer(
  postedOperations((params) => {
    const query = compiledFor(params.query);
    return isCompiledQuery(query) ? query.query(undefined, {}, params.variables ?? {}) : query;
  }),
);
serveFloor(server, pool);
