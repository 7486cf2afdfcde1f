import { buildSchema, getIntrospectionQuery, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { maxAliasesRule, maxDepthRule } from '../../src/plugins/operation-limits.ts';

const schema = buildSchema(`
  type Node { id: ID, child: Node }
  type Query { node: Node }
`);

const nested = (depth: number): string =>
  `{ node ${'{ child '.repeat(depth - 2)}{ id }${' }'.repeat(depth - 2)} }`;

const messages = (source: string, rule = maxDepthRule(5)): string[] =>
  validate(schema, parse(source), [rule]).map((e) => e.message);

describe('the depth limit', () => {
  it('lets through GraphiQL’s full introspection query at the default limit', () => {
    const introspection = getIntrospectionQuery({
      descriptions: true,
      inputValueDeprecation: true,
      oneOf: true,
      schemaDescription: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
    });
    expect(messages(introspection, maxDepthRule(12))).toEqual([]);
  });

  it('accepts an operation exactly at the limit and refuses one a level deeper', () => {
    expect(messages(nested(5))).toEqual([]);
    expect(messages(nested(6))).toEqual([
      'The operation is nested deeper than 5 fields (MAX_QUERY_DEPTH).',
    ]);
  });

  it('follows fragments when measuring depth', () => {
    const source = `{ node { ...a } } fragment a on Node { child { child { child { child { id } } } } }`;
    expect(messages(source)).toHaveLength(1);
  });

  it('terminates on fragment cycles (which validation also refuses)', () => {
    const source = `{ node { ...a } } fragment a on Node { child { ...a } }`;
    expect(() => messages(source)).not.toThrow();
  });
});

describe('the alias limit', () => {
  it('counts every alias in the document', () => {
    const source = `{ ${Array.from({ length: 4 }, (_, i) => `a${i}: node { id }`).join(' ')} }`;
    expect(messages(source, maxAliasesRule(4))).toEqual([]);
    expect(messages(source, maxAliasesRule(3))).toEqual([
      'The document has 4 aliases; at most 3 are allowed (MAX_ALIASES).',
    ]);
  });
});
