import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExamples } from '../helpers/examples.ts';
import { createGateway, type Gateway } from '../../src/server.ts';
import { startStack, type GraphQLAnswer, type Stack } from '../helpers/stack.ts';

// Every query example, and answers with errors, are compared: graphql-jit
// (GRAPHQL_JIT, the default) must answer exactly what graphql-js answers.
const queries = readExamples().filter((example) => example.operationType === 'query');
const odd: Array<[string, string, Record<string, unknown>]> = [
  [
    'an unknown workflow',
    'query($id: ID!) { workflow(id: $id) { id name } }',
    { id: '00000000-0000-4000-8000-000000000000' },
  ],
  [
    'a variable of the wrong type',
    'query($first: Int) { workflows(first: $first) { totalCount } }',
    { first: 'many' },
  ],
  ['a missing required variable', 'query($id: ID!) { workflow(id: $id) { id } }', {}],
  ['a bad id', '{ workflow(id: "../etc") { id } }', {}],
  ['typename and aliases', '{ a: workflows(first: 2) { __typename nodes { id n: name } } }', {}],
];

// Two gateways over the same simulators: compiled (the default) and graphql-js.
let jit: Stack;
let interpretedGateway: Gateway;
const plain = {
  async gql(query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer> {
    const response = await interpretedGateway.yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as Pick<GraphQLAnswer, 'data' | 'errors'>;
    return { status: response.status, headers: response.headers, ...body };
  },
};
beforeAll(async () => {
  jit = await startStack({ env: { GRAPHQL_JIT: 'true' } });
  interpretedGateway = createGateway({ ...jit.config, graphqlJit: false });
});
afterAll(async () => {
  await interpretedGateway.close();
  await jit.close();
});

describe('queries compiled by graphql-jit', () => {
  it.each(queries.map((example) => [example.name, example] as const))(
    'answer %s exactly as graphql-js does',
    async (_name, example) => {
      const [compiled, interpreted] = await Promise.all([
        jit.gql(example.document, example.variables),
        plain.gql(example.document, example.variables),
      ]);
      expect(JSON.stringify(compiled.data)).toBe(JSON.stringify(interpreted.data));
      expect(compiled.errors).toEqual(interpreted.errors);
    },
  );

  it.each(odd)('answer %s exactly as graphql-js does', async (_name, query, variables) => {
    const [compiled, interpreted] = await Promise.all([
      jit.gql(query, variables),
      plain.gql(query, variables),
    ]);
    expect(compiled.status).toBe(interpreted.status);
    expect(JSON.stringify(compiled.data)).toBe(JSON.stringify(interpreted.data));
    expect(compiled.errors).toEqual(interpreted.errors);
  });
});
