import { buildSchema, getIntrospectionQuery, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { aliasesRule, depthRules } from '../../src/plugins/operation-limits.ts';

const schema = buildSchema(`
  type Node { id: ID, child: Node }
  type Query { node: Node }
`);

const nested = (depth: number): string =>
  `{ node ${'{ child '.repeat(depth - 2)}{ id }${' }'.repeat(depth - 2)} }`;

const messages = (source: string, rules = depthRules(5)): string[] =>
  validate(schema, parse(source), rules).map((e) => e.message);

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
    expect(messages(introspection, depthRules(12))).toEqual([]);
  });

  it('accepts an operation exactly at the limit and refuses one a level deeper', () => {
    expect(messages(nested(5))).toEqual([]);
    expect(messages(nested(6))).toEqual([
      'The operation is nested deeper than 5 fields (MAX_QUERY_DEPTH).',
    ]);
  });

  it('follows fragments when measuring depth, and a spread adds no level', () => {
    const source = `{ node { ...a } } fragment a on Node { child { child { child { child { id } } } } }`;
    expect(messages(source)).toHaveLength(1);
    const atLimit = `{ node { ...a } } fragment a on Node { child { ... on Node { child { child { id } } } } }`;
    expect(messages(atLimit)).toEqual([]);
  });

  it('reports one error however many operations are too deep', () => {
    expect(messages(`query A ${nested(6)} query B ${nested(7)}`)).toEqual([
      'The operation is nested deeper than 5 fields (MAX_QUERY_DEPTH).',
    ]);
  });

  it('caps introspection at 16 levels', () => {
    const typeRef = (depth: number): string =>
      `${'ofType { '.repeat(depth)}name${' }'.repeat(depth)}`;
    // __schema types fields type: 4 levels, then the ofType chain and its name
    const introspection = (depth: number): string =>
      `{ __schema { types { fields { type { ${typeRef(depth - 5)} } } } } }`;
    expect(messages(introspection(16))).toEqual([]);
    expect(messages(introspection(17))).toEqual([
      'The operation is nested deeper than 16 fields (MAX_QUERY_DEPTH).',
    ]);
  });

  it('terminates on fragment cycles (which validation also refuses)', () => {
    const source = `{ node { ...a } } fragment a on Node { child { ...a } }`;
    expect(() => messages(source)).not.toThrow();
  });
});

describe('the alias limit', () => {
  it('counts every alias of the operation, fragments included where they are spread', () => {
    const source = `{ a0: node { id } ...f } fragment f on Query { a1: node { id } a2: node { id } a3: __typename }`;
    expect(messages(source, [aliasesRule(4)])).toEqual([]);
    expect(messages(source, [aliasesRule(3)])).toEqual([
      'The operation has more than 3 aliases (MAX_ALIASES).',
    ]);
  });
});
