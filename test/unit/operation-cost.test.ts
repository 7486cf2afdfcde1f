import { isObjectType, parse } from 'graphql';
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import {
  costOfFields,
  estimateUpstreamCalls,
  takesContext,
} from '../../src/plugins/estimate-upstream-calls.ts';
import { upstreamCosts } from '../../src/plugins/upstream-costs.ts';
import { resolvers } from '../../src/resolvers/index.ts';
import { loadTypeDefs } from '../../src/server.ts';
import { readExamples } from '../helpers/examples.ts';

const schema = createSchema({ typeDefs: loadTypeDefs(), resolvers });
const resolverMap = resolvers as Record<string, Record<string, unknown> | undefined>;
const costOf = costOfFields(schema, resolverMap);
const roots = new Set(['Query', 'Mutation', 'Subscription']);

const estimate = (query: string, variables?: Record<string, unknown>): number | undefined =>
  estimateUpstreamCalls(schema, parse(query), { variables }, costOf);

describe('the table of upstream costs', () => {
  it('has a row for every field that may reach an upstream: every root field, every resolver that takes the context', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const coordinate = `${type.name}.${field.name}`;
        const reaches = roots.has(type.name) || takesContext(resolverMap[type.name]?.[field.name]);
        if (reaches && upstreamCosts[coordinate] === undefined) missing.push(coordinate);
      }
    }
    expect(missing, 'add these fields to src/plugins/upstream-costs.ts').toEqual([]);
  });

  it('names only fields of the schema', () => {
    const unknown = Object.keys(upstreamCosts).filter((coordinate) => {
      const [typeName = '', fieldName = ''] = coordinate.split('.');
      const type = schema.getType(typeName);
      return !isObjectType(type) || type.getFields()[fieldName] === undefined;
    });
    expect(unknown).toEqual([]);
  });

  it('tells a resolver that takes the context (and may call an upstream) from one that reads its parent only', () => {
    expect(takesContext((_parent: unknown, _args: unknown, _context: unknown) => null)).toBe(true);
    expect(takesContext((parent: { id: string }) => parent.id)).toBe(false);
    expect(takesContext({ subscribe: (_p: unknown, _a: unknown, _c: unknown) => null })).toBe(true);
    expect(takesContext(undefined)).toBe(false);
  });

  it('counts a field without a row as one call per item when its resolver takes the context, and a root field as one', () => {
    const small = createSchema({
      typeDefs:
        'type Query { things(first: Int = 50): [Thing!] } type Thing { id: ID! detail: String }',
      resolvers: {
        Query: { things: () => [] },
        Thing: { detail: (_thing: unknown, _args: unknown, _context: unknown) => null },
      },
    });
    const untabled = costOfFields(
      small,
      { Thing: { detail: (_t: unknown, _a: unknown, _c: unknown) => null } },
      {},
    );
    const of = (query: string) => estimateUpstreamCalls(small, parse(query), {}, untabled);
    expect(of('{ things(first: 10) { id detail } }')).toBe(11);
    expect(of('{ things { id } }')).toBe(1);
    expect(of('{ things { detail } }')).toBe(51);
  });
});

describe('the estimate of upstream calls', () => {
  it('multiplies a per-item call by `first`: 1,001 for a thousand workflows with their parameters', () => {
    expect(estimate('{ workflows(first: 1000) { nodes { inputParameters { name } } } }')).toBe(
      1001,
    );
    expect(
      estimate('{ workflows(first: 50) { edges { node { outputParameters { name } } } } }'),
    ).toBe(51);
  });

  it('uses the argument default and the variables', () => {
    expect(estimate('{ workflows { nodes { inputParameters { name } } } }')).toBe(51);
    const query = 'query ($n: Int) { workflows(first: $n) { nodes { inputParameters { name } } } }';
    expect(estimate(query, { n: 7 })).toBe(8);
    expect(estimate(query, { n: null })).toBe(51);
    expect(estimate(query, { n: 'many' })).toBeUndefined();
  });

  it('counts the fields of one loader on one object once (input and output parameters: one detail read)', () => {
    expect(
      estimate(
        '{ workflows(first: 50) { nodes { id name inputParameters { name type } outputParameters { name type } } } }',
      ),
    ).toBe(51);
  });

  it('counts nothing for what the records of a field above already carry', () => {
    expect(estimate('{ workflows(first: 1000) { nodes { categoryName canExecute } } }')).toBe(1);
    const byId = '{ workflow(id: "w") { categoryName canEdit inputParameters { name } } }';
    expect(estimate(byId)).toBe(2);
  });

  it('counts the providers of a page of catalog items once per operation, however many pages', () => {
    expect(estimate('{ catalogItems(first: 1000) { nodes { provider { name } } } }')).toBe(3);
    expect(
      estimate(
        '{ a: catalogItems(first: 100) { nodes { provider { name } } } b: catalogItems(first: 5) { nodes { provider { id } } } }',
      ),
    ).toBe(5);
  });

  it('adds up aliases, and merges a field selected twice under one name as GraphQL runs it once', () => {
    const item = 'workflows(first: 10) { nodes { inputParameters { name } } }';
    expect(estimate(`{ a: ${item} b: ${item} c: ${item} }`)).toBe(33);
    expect(
      estimate(
        '{ workflows(first: 10) { nodes { id } } workflows(first: 10) { nodes { inputParameters { name } } } }',
      ),
    ).toBe(11);
  });

  it('follows fragments and inline fragments, and leaves out what @skip and @include leave out', () => {
    expect(
      estimate(`{ workflows(first: 10) { ...Page } }
        fragment Page on WorkflowConnection { nodes { ... on Workflow { inputParameters { name } } } }`),
    ).toBe(11);
    const conditional = `query ($skip: Boolean!) { workflows(first: 10) { nodes {
      inputParameters @skip(if: $skip) { name } outputParameters @include(if: false) { name } } } }`;
    expect(estimate(conditional, { skip: true })).toBe(1);
    expect(estimate(conditional, { skip: false })).toBe(11);
  });

  it('counts a mutation and what it selects', () => {
    expect(
      estimate(
        'mutation { runWorkflow(workflowId: "w") { execution { id workflow { name inputParameters { name } } } } }',
      ),
    ).toBe(3);
  });

  it('lets every example and every benchmark operation run under the default limit', () => {
    const { maxUpstreamCalls } = loadConfig({}).limits;
    expect(maxUpstreamCalls).toBe(100);
    for (const example of readExamples()) {
      const estimated = estimateUpstreamCalls(
        schema,
        parse(example.document),
        { operationName: example.operationName, variables: example.variables },
        costOf,
      );
      expect(estimated ?? 0, example.name).toBeLessThanOrEqual(maxUpstreamCalls);
    }
    // test/bench/scenarios: batching.ts, caching.ts, fan-out.ts, overhead.ts, upstream-limit.ts
    const bench = [
      '{ catalogItems(first: 100) { nodes { name provider { name } } } }',
      '{ workflows(first: 50) { nodes { id name inputParameters { name type } outputParameters { name type } } } }',
      '{ workflows(first: 5) { nodes { id name } } catalogItems(first: 5) { nodes { id name } } ipSets { id name } }',
      '{ workflows(first: 20) { nodes { id name description version categoryName } } }',
      '{ workflows(first: 20) { nodes { id name version } totalCount } }',
      '{ catalogItems(first: 20) { nodes { name provider { name } } } }',
    ];
    for (const query of bench) expect(estimate(query), query).toBeLessThanOrEqual(maxUpstreamCalls);
  });
});

describe('MAX_UPSTREAM_CALLS_PER_OPERATION', () => {
  it.each(['0', 'many', '1.5'])('stops start-up on %s, naming the variable', (value) => {
    const load = () => loadConfig({ MAX_UPSTREAM_CALLS_PER_OPERATION: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^MAX_UPSTREAM_CALLS_PER_OPERATION /);
  });

  it('takes a positive integer', () => {
    expect(loadConfig({ MAX_UPSTREAM_CALLS_PER_OPERATION: '500' }).limits.maxUpstreamCalls).toBe(
      500,
    );
  });
});
