/**
 * graphql-yoga under a leaner HTTP layer: the same one-resolver schema as
 * `bare-yoga.ts`, in a yoga server at its defaults, but served over node:http
 * with no server adapter. The body is read and JSON-parsed (as `bare-lean.ts`
 * does) and handed to yoga's own operation step (`getResultForParams`: its
 * params hooks, the envelop pipeline with its parse and validation caches,
 * the context, graphql-js's execution, its result hooks); the result is
 * JSON-stringified and sent with `res.end`. What it skips is
 * @whatwg-node/server's Request and Response and yoga's request parsing and
 * response processing. Bench only. Prints {"url":"http://127.0.0.1:<port>"}
 * once listening; SIGTERM stops it.
 *
 *   node test/bench/bare-envelop.ts workflows <vRO base URL> <username> <password>
 *   node test/bench/bare-envelop.ts providers <vRA base URL> <bearer token>
 */
import { createServer } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { floorSchema } from './bare-schema.ts';
import { postedOperations, serveFloor } from './serve-floor.ts';

const { pool, definition } = floorSchema(process.argv.slice(2), 'bare-envelop.ts');
const yoga = createYoga({ logging: false, schema: createSchema(definition) });
/** Stands for the fetch Request no one builds here; yoga's default hooks read nothing of it. */
const request = new Request('http://127.0.0.1/graphql', { method: 'POST' });

serveFloor(
  createServer(
    postedOperations(
      (params) =>
        yoga.getResultForParams(
          { params, request },
          { request, params },
        ) as Promise<ExecutionResult>,
    ),
  ),
  pool,
);
