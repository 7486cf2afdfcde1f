/**
 * The floor the chosen framework costs: graphql-yoga with its defaults and one
 * resolver, `workflows(first)` answering from the vRO query an undici pool
 * sends (`bare-schema.ts`). None of the gateway: no logs, metrics, limits, loaders,
 * circuit breaker or error mapping. Bench only. Prints
 * {"url":"http://127.0.0.1:<port>"} once listening; SIGTERM stops it.
 *
 *   node test/bench/bare-yoga.ts <vRO base URL> <username> <password>
 */
import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import { Pool } from 'undici';
import { bareSchema, workflowsOf } from './bare-schema.ts';
import { serveFloor } from './serve-floor.ts';

const [base, username, password] = process.argv.slice(2);
if (base === undefined || username === undefined || password === undefined) {
  throw new Error('usage: bare-yoga.ts <vRO base URL> <username> <password>');
}
const vro = new URL(base);
const pool = new Pool(vro.origin, { connections: 256 });
const yoga = createYoga({
  logging: false,
  schema: createSchema(bareSchema(workflowsOf(pool, vro, username, password))),
});

serveFloor(createServer(yoga.requestListener), pool);
