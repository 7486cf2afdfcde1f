/**
 * The floor the chosen framework costs: graphql-yoga with its defaults and one
 * resolver answering from one upstream call an undici pool sends
 * (`bare-schema.ts`: `workflows(first)` over vRO, or `providers(first)` over
 * vRA 7). None of the gateway: no logs, metrics, limits, loaders, circuit
 * breaker or error mapping. Bench only. Prints
 * {"url":"http://127.0.0.1:<port>"} once listening; SIGTERM stops it.
 *
 *   node test/bench/bare-yoga.ts workflows <vRO base URL> <username> <password>
 *   node test/bench/bare-yoga.ts providers <vRA base URL> <bearer token>
 */
import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import { floorSchema } from './bare-schema.ts';
import { serveFloor } from './serve-floor.ts';

const { pool, definition } = floorSchema(process.argv.slice(2), 'bare-yoga.ts');
const yoga = createYoga({ logging: false, schema: createSchema(definition) });

serveFloor(createServer(yoga.requestListener), pool);
