/**
 * The floor the chosen framework costs: graphql-yoga with its defaults and one
 * resolver, `workflows(first)` answering `id` and `name` from the vRO query an
 * undici pool sends. None of the gateway: no logs, metrics, limits, loaders,
 * circuit breaker or error mapping. Bench only. Prints
 * {"url":"http://127.0.0.1:<port>"} once listening; SIGTERM stops it.
 *
 *   node test/bench/bare-yoga.ts <vRO base URL> <username> <password>
 */
import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import { Pool } from 'undici';
import { serveFloor } from './serve-floor.ts';

const [base, username, password] = process.argv.slice(2);
if (base === undefined || username === undefined || password === undefined) {
  throw new Error('usage: bare-yoga.ts <vRO base URL> <username> <password>');
}
const vro = new URL(base);
const pool = new Pool(vro.origin, { connections: 256 });
const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

interface QueryResult {
  link: { attributes: { name: string; value?: string }[] }[];
}

async function workflows(
  first: number,
): Promise<{ nodes: { id: string | undefined; name: string | undefined }[] }> {
  const answer = await pool.request({
    method: 'GET',
    path: `${vro.pathname}/workflows?maxResult=${first}&startIndex=0`,
    headers: { authorization, accept: 'application/json' },
  });
  const result = (await answer.body.json()) as QueryResult;
  return {
    nodes: result.link.map((link) => {
      const value = (name: string): string | undefined =>
        link.attributes.find((attribute) => attribute.name === name)?.value;
      return { id: value('id'), name: value('name') };
    }),
  };
}

const yoga = createYoga({
  logging: false,
  schema: createSchema({
    typeDefs: /* GraphQL */ `
      type Query {
        workflows(first: Int!): WorkflowConnection!
      }
      type WorkflowConnection {
        nodes: [Workflow!]!
      }
      type Workflow {
        id: ID!
        name: String!
      }
    `,
    resolvers: {
      Query: { workflows: (_: unknown, args: { first: number }) => workflows(args.first) },
    },
  }),
});

serveFloor(createServer(yoga.requestListener), pool);
