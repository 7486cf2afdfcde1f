import { Pool } from 'undici';

/** How the floors (`bare-yoga.ts`, `bare-envelop.ts`, `bare-lean.ts`) are started. */
const floorUsage = (script: string): string =>
  `usage: ${script} workflows <vRO base URL> <username> <password>\n` +
  `       ${script} providers <vRA base URL> <bearer token>`;

/** The schema of a floor, for `createSchema`, and the upstream pool it calls through. */
export interface FloorSchema {
  pool: Pool;
  definition: { typeDefs: string; resolvers: { Query: Record<string, Resolver> } };
}
type Resolver = (parent: unknown, args: { first: number }) => Promise<unknown>;

/**
 * The one-resolver schema of the bench floors, for the operation their argv
 * names: `workflows(first)` from the vRO query (Basic auth), or
 * `providers(first)` from one page of vRA 7's catalog providers (a bearer),
 * each an undici pool's request, the answer JSON-parsed and mapped as it is.
 */
export function floorSchema(argv: readonly string[], script: string): FloorSchema {
  const [operation, base, ...credentials] = argv;
  if (base === undefined) throw new Error(floorUsage(script));
  const upstream = new URL(base);
  const pool = new Pool(upstream.origin, { connections: 256 });
  const [first, second] = credentials;
  if (operation === 'workflows' && first !== undefined && second !== undefined) {
    const authorization = `Basic ${Buffer.from(`${first}:${second}`).toString('base64')}`;
    return { pool, definition: workflowsSchema(pool, upstream, authorization) };
  }
  if (operation === 'providers' && first !== undefined && second === undefined) {
    return { pool, definition: providersSchema(pool, upstream, `Bearer ${first}`) };
  }
  throw new Error(floorUsage(script));
}

async function getJson(pool: Pool, path: string, authorization: string): Promise<unknown> {
  const answer = await pool.request({
    method: 'GET',
    path,
    headers: { authorization, accept: 'application/json' },
  });
  return answer.body.json();
}

interface WorkflowQueryResult {
  link: { attributes: { name: string; value?: string }[] }[];
}

function workflowsSchema(pool: Pool, vro: URL, authorization: string): FloorSchema['definition'] {
  const workflows: Resolver = async (_, { first }) => {
    const path = `${vro.pathname}/workflows?maxResult=${first}&startIndex=0`;
    const result = (await getJson(pool, path, authorization)) as WorkflowQueryResult;
    return {
      nodes: result.link.map((link) => {
        const value = (name: string): string | undefined =>
          link.attributes.find((attribute) => attribute.name === name)?.value;
        return {
          id: value('id'),
          name: value('name'),
          description: value('description'),
          version: value('version'),
          categoryName: value('categoryName'),
        };
      }),
    };
  };
  return {
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
        description: String
        version: String
        categoryName: String
      }
    `,
    resolvers: { Query: { workflows } },
  };
}

interface ProviderPage {
  content: { id: string; name: string; providerTypeId: string }[];
  metadata: { totalElements: number };
}

function providersSchema(pool: Pool, vra: URL, authorization: string): FloorSchema['definition'] {
  const base = vra.pathname.replace(/\/$/, '');
  const providers: Resolver = async (_, { first }) => {
    const path = `${base}/catalog-service/api/providers?page=1&limit=${first}`;
    const page = (await getJson(pool, path, authorization)) as ProviderPage;
    return { nodes: page.content, totalCount: page.metadata.totalElements };
  };
  return {
    typeDefs: /* GraphQL */ `
      type Query {
        providers(first: Int!): ProviderConnection!
      }
      type ProviderConnection {
        nodes: [Provider!]!
        totalCount: Int!
      }
      type Provider {
        id: ID!
        name: String!
        providerTypeId: String!
      }
    `,
    resolvers: { Query: { providers } },
  };
}
