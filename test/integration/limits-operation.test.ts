import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLAnswer, type Stack, startStack, upstreamCalls } from '../helpers/stack.ts';

interface ErrorBody {
  errors: Array<{ message: string; extensions: { code: string } }>;
}

let stack: Stack;
let defaults: Stack;

beforeAll(async () => {
  [stack, defaults] = await Promise.all([
    startStack({
      env: {
        MAX_QUERY_DEPTH: '3',
        MAX_ALIASES: '2',
        MAX_TOKENS: '40',
        MAX_BATCH_OPERATIONS: '2',
      },
    }),
    startStack(),
  ]);
});
afterAll(async () => {
  await Promise.all([stack.close(), defaults.close()]);
});

/** Sends the query and checks that it was refused with `code`, with no upstream call. */
async function expectRefused(query: string, code: string): Promise<GraphQLAnswer> {
  const before = upstreamCalls(stack);
  const answer = await stack.gql(query);
  expect(answer.data ?? null).toBeNull();
  expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual([code]);
  expect(upstreamCalls(stack)).toBe(before);
  return answer;
}

describe('operation limits', () => {
  it('refuses a selection nested deeper than MAX_QUERY_DEPTH as GRAPHQL_VALIDATION_FAILED', async () => {
    const answer = await expectRefused(
      '{ workflows(first: 1) { edges { node { id } } } }',
      'GRAPHQL_VALIDATION_FAILED',
    );
    expect(answer.errors?.[0]?.message).toContain('MAX_QUERY_DEPTH');
  });

  it('counts the depth through fragments, inline fragments and cycles', async () => {
    await expectRefused(
      `{ workflows(first: 1) { ...E } }
       fragment E on WorkflowConnection { edges { ... on WorkflowEdge { node { id } } } }`,
      'GRAPHQL_VALIDATION_FAILED',
    );
    const cyclic = await stack.gql(
      `{ workflows(first: 1) { ...A } } fragment A on WorkflowConnection { ...A totalCount }`,
    );
    expect(cyclic.errors?.[0]?.extensions?.['code']).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('runs a selection exactly MAX_QUERY_DEPTH deep', async () => {
    const answer = await stack.gql('{ workflows(first: 1) { edges { cursor } } }');
    expect(answer.errors).toBeUndefined();
  });

  it('refuses more aliases than MAX_ALIASES as GRAPHQL_VALIDATION_FAILED', async () => {
    const answer = await expectRefused(
      '{ a: __typename b: __typename c: __typename }',
      'GRAPHQL_VALIDATION_FAILED',
    );
    expect(answer.errors?.[0]?.message).toContain('MAX_ALIASES');
    const atLimit = await stack.gql('{ a: __typename b: __typename }');
    expect(atLimit.errors).toBeUndefined();
  });

  it('refuses a document of more than MAX_TOKENS tokens as GRAPHQL_PARSE_FAILED', async () => {
    const answer = await expectRefused(
      `{ ${Array.from({ length: 41 }, () => '__typename').join(' ')} }`,
      'GRAPHQL_PARSE_FAILED',
    );
    expect(answer.errors?.[0]?.message).toContain('MAX_TOKENS');
  });

  it('keeps the parser’s own message for a document within MAX_TOKENS that does not parse', async () => {
    const answer = await expectRefused(
      '{ workflows(first: 1) { totalCount }',
      'GRAPHQL_PARSE_FAILED',
    );
    expect(answer.errors?.[0]?.message).toBe('Syntax Error: Expected Name, found <EOF>.');
  });

  it('lets the introspection query GraphiQL sends through the default limits', async () => {
    const answer = await defaults.gql(getIntrospectionQuery({ descriptions: true }));
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['__schema']).toBeDefined();
  });
});

describe('batched requests', () => {
  const query = { query: '{ workflows(first: 1) { totalCount } }' };
  const postBatch = (target: Stack, batch: unknown[]) =>
    target.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(batch),
    });

  it('runs up to MAX_BATCH_OPERATIONS operations of one request', async () => {
    const response = await postBatch(stack, [query, query]);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { data: { workflows: { totalCount: 61 } } },
      { data: { workflows: { totalCount: 61 } } },
    ]);
  });

  it('refuses a batch of more than MAX_BATCH_OPERATIONS operations with 413 and BAD_USER_INPUT, running none', async () => {
    const before = upstreamCalls(stack);
    const response = await postBatch(stack, [query, query, query]);
    expect(response.status).toBe(413);
    const body = (await response.json()) as ErrorBody;
    expect(body.errors.map((e) => e.extensions.code)).toEqual(['BAD_USER_INPUT']);
    expect(body.errors[0]?.message).toContain('2');
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('refuses any batch when MAX_BATCH_OPERATIONS is 1', async () => {
    const single = await startStack({ env: { MAX_BATCH_OPERATIONS: '1' } });
    try {
      const response = await postBatch(single, [query]);
      expect(response.status).toBe(400);
      const body = (await response.json()) as ErrorBody;
      expect(body.errors.map((e) => e.extensions.code)).toEqual(['BAD_USER_INPUT']);
      expect(upstreamCalls(single)).toBe(0);
    } finally {
      await single.close();
    }
  });
});

describe('malformed GraphQL requests', () => {
  it.each([
    ['a body that is not JSON', '{"query": ', 400],
    ['no query', '{}', 200],
    [
      'an operation name the document lacks',
      '{"query":"query A { __typename }","operationName":"B"}',
      400,
    ],
  ])('answers %s with BAD_USER_INPUT', async (_, body, status) => {
    const response = await stack.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    expect(response.status).toBe(status);
    const answer = (await response.json()) as ErrorBody;
    expect(answer.errors.map((e) => e.extensions.code)).toEqual(['BAD_USER_INPUT']);
  });

  it('refuses a mutation sent with GET with BAD_USER_INPUT and calls no upstream', async () => {
    const before = upstreamCalls(stack);
    const mutation = 'mutation { deleteIpSet(id: "ipset-1") { deleted } }';
    const response = await stack.fetch(`/graphql?query=${encodeURIComponent(mutation)}`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(405);
    const answer = (await response.json()) as ErrorBody;
    expect(answer.errors.map((e) => e.extensions.code)).toEqual(['BAD_USER_INPUT']);
    expect(upstreamCalls(stack)).toBe(before);
  });
});
