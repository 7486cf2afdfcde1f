import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getIntrospectionQuery, parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { documentHash } from '../../src/plugins/persisted-operations.ts';
import { persistedOperationsOf, readExamples } from '../helpers/examples.ts';
import { type Stack, startStack, upstreamCalls } from '../helpers/stack.ts';

const examples = readExamples();
const example = (name: string) => examples.find((e) => e.name === name)!;
const committed = new URL('../../examples/persisted-operations.json', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'persisted-'));

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ env: { PERSISTED_OPERATIONS_FILE: fileURLToPath(committed) } });
});
afterAll(async () => {
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(body: unknown, accept = 'application/json') {
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
  const answer: any = await response.json();
  return { status: response.status, body: answer };
}

function expectRefused(body: any): void {
  expect(body.data ?? null).toBeNull();
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
  expect(body.errors[0].message).toContain('not in the allow-list');
}

describe('examples/persisted-operations.json', () => {
  it('is what `npm run persisted:build` makes of examples/ today', () => {
    const built = persistedOperationsOf(examples);
    expect(JSON.parse(readFileSync(committed, 'utf8'))).toEqual(built);
    expect(Object.keys(built)).toHaveLength(examples.length);
  });
});

describe('with PERSISTED_OPERATIONS_FILE (allow-list mode)', () => {
  it('runs a listed operation sent as its document', async () => {
    const ipSets = example('ip-sets');
    const answer = await stack.gql<any>(ipSets.document, ipSets.variables);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.ipSet.name).toBe('IPSET-2');
  });

  it('runs a listed operation sent by its SHA-256 alone (Apollo persisted query)', async () => {
    const wanted = example('workflow-parameters');
    const { body } = await post({
      variables: wanted.variables,
      extensions: { persistedQuery: { version: 1, sha256Hash: documentHash(wanted.document) } },
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.workflow.name).toBe('Echo parameters');
  });

  it('runs a listed operation by hash over GET', async () => {
    const wanted = example('providers');
    const url = new URL('http://gateway.test/graphql');
    url.searchParams.set(
      'extensions',
      JSON.stringify({ persistedQuery: { version: 1, sha256Hash: documentHash(wanted.document) } }),
    );
    const response = await stack.fetch(`${url.pathname}${url.search}`, {
      headers: { accept: 'application/json' },
    });
    const body: any = await response.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.iaas.name).toBe('iaas-service');
  });

  it('runs a listed operation written differently (no comments, other whitespace)', async () => {
    const explore = example('explore');
    const rewritten = print(parse(explore.document));
    expect(rewritten).not.toBe(explore.document);
    const answer = await stack.gql<any>(rewritten);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.workflows.totalCount).toBeGreaterThan(0);
  });

  it('refuses any other operation with GRAPHQL_VALIDATION_FAILED before any upstream call', async () => {
    const before = upstreamCalls(stack);
    const { status, body } = await post({ query: '{ ipSets { id name } }' });
    expect(status).toBe(200);
    expectRefused(body);
    const strict = await post(
      { query: 'mutation { deleteIpSet(id: "ipset-3") { deleted } }' },
      'application/graphql-response+json',
    );
    expect(strict.status).toBe(400);
    expectRefused(strict.body);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('refuses an unknown hash, and a listed hash sent with another document', async () => {
    const before = upstreamCalls(stack);
    const unknown = await post({
      extensions: { persistedQuery: { version: 1, sha256Hash: documentHash('{ ipSets { id } }') } },
    });
    expectRefused(unknown.body);
    const listed = documentHash(example('ip-sets').document);
    const smuggled = await post({
      query: 'mutation { deleteIpSet(id: "ipset-3", force: true) { deleted } }',
      extensions: { persistedQuery: { version: 1, sha256Hash: listed } },
    });
    expectRefused(smuggled.body);
    expect(upstreamCalls(stack)).toBe(before);
    expect(stack.nsx.state.ipSets.some((s) => s.objectId === 'ipset-3')).toBe(true);
  });

  it('refuses each unlisted operation of a batch on its own', async () => {
    const listed = example('force-sync-edge');
    const { body } = await post([
      { query: listed.document, variables: listed.variables },
      { query: '{ services { id } }' },
    ]);
    expect(body[0].errors).toBeUndefined();
    expect(body[0].data.forceSyncEdge.accepted).toBe(true);
    expectRefused(body[1]);
  });

  it('lets introspection through (GraphiQL docs, code generators), but nothing mixed with it', async () => {
    const introspection = await post({
      query: getIntrospectionQuery(),
      operationName: 'IntrospectionQuery',
    });
    expect(introspection.body.errors).toBeUndefined();
    expect(introspection.body.data.__schema.queryType.name).toBe('Query');
    const typename = await post({ query: '{ __typename }' });
    expect(typename.body.data).toEqual({ __typename: 'Query' });
    const mixed = await post({ query: '{ __schema { queryType { name } } ipSets { id } }' });
    expectRefused(mixed.body);
    const viaFragment = await post({
      query: 'query { ...F } fragment F on Query { __typename ipSets { id } }',
    });
    expectRefused(viaFragment.body);
  });

  it('still serves GraphiQL', async () => {
    const response = await stack.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('YogaGraphiQL.renderYogaGraphiQL');
  });

  it('runs listed subscriptions and uploads like any other listed operation', async () => {
    const upload = example('import-package');
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({ query: upload.document, variables: upload.variables }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append(
      '0',
      new File(
        [readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url))],
        'x.package',
      ),
    );
    const response = await stack.fetch('/graphql', { method: 'POST', body: form });
    const body: any = await response.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.importPackage.imported).toBe(true);
  });
});

describe('PERSISTED_OPERATIONS_FILE at start-up', () => {
  const write = (name: string, content: string): string => {
    const file = join(dir, name);
    writeFileSync(file, content);
    return file;
  };
  const load = (file: string) => () => loadConfig({ PERSISTED_OPERATIONS_FILE: file });
  const doc = 'query Q { ipSets { id } }';

  it.each([
    ['is not JSON', '{ nope'],
    ['is not an object', '["{ ipSets { id } }"]'],
    [
      'lists an id that is not the SHA-256 of its document',
      JSON.stringify({ ['0'.repeat(64)]: doc }),
    ],
    [
      'lists a document that does not parse',
      JSON.stringify({ [documentHash('query {')]: 'query {' }),
    ],
    ['lists a document that is not a string', JSON.stringify({ [documentHash(doc)]: 42 })],
  ])('stops start-up naming the variable when the file %s', (_what, content) => {
    const file = write(`bad-${Math.random().toString(36).slice(2)}.json`, content);
    expect(load(file)).toThrow(ConfigError);
    expect(load(file)).toThrow(/^PERSISTED_OPERATIONS_FILE /);
  });

  it('accepts an Apollo persisted query manifest', async () => {
    const file = write(
      'manifest.json',
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [{ id: documentHash(doc), name: 'Q', type: 'query', body: doc }],
      }),
    );
    const local = await startStack({ env: { PERSISTED_OPERATIONS_FILE: file } });
    try {
      const listed = await local.gql<any>(doc);
      expect(listed.errors).toBeUndefined();
      expect(listed.data?.ipSets.length).toBeGreaterThan(0);
      const other = await local.gql<any>('{ services { id } }');
      expect(other.errors?.[0]?.extensions?.['code']).toBe('GRAPHQL_VALIDATION_FAILED');
    } finally {
      await local.close();
    }
  });
});
