import type { Pool } from 'undici';

interface QueryResult {
  link: { attributes: { name: string; value?: string }[] }[];
}

type Workflow = Record<'id' | 'name' | 'description' | 'version' | 'categoryName', unknown>;
type Workflows = (first: number) => Promise<{ nodes: Workflow[] }>;

/**
 * `workflows(first)` of the bench floors (`bare-yoga.ts`, `bare-lean.ts`): the
 * vRO query an undici pool sends, its links' attributes as they are.
 */
export function workflowsOf(pool: Pool, vro: URL, username: string, password: string): Workflows {
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  return async (first) => {
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
}

/** The floors' one-resolver schema, for `createSchema`. */
export function bareSchema(workflows: Workflows) {
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
    resolvers: {
      Query: { workflows: (_: unknown, args: { first: number }) => workflows(args.first) },
    },
  };
}
