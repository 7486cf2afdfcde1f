/**
 * Every Query and Mutation field of the schema, read from schema/*.graphql,
 * with random variables of its argument types (and values of no type at all).
 */
import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { loadTypeDefs } from '../../src/server.ts';
import {
  anyCursor,
  anyInt,
  anyJson,
  check,
  expectSafeUpstreamRequests,
  expectServing,
  hostile,
  idLike,
  mark,
  send,
} from '../helpers/property.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const schema = buildSchema(loadTypeDefs().join('\n'));

/** Ids that exist in the simulators' seed data, so that some calls get past the checks. */
const knownIds = [
  'globalroot-0',
  'ipset-1',
  'application-400',
  'ipset-3',
  'datacenter-2',
  'edge-1',
  'dvportgroup-63',
  '3eabedcb-baa8-4dd4-88bd-64072bcfbe01',
  'aefcfad8-efc8-4849-b3aa-7efe4458a885',
];

/** A random value for an input type: mostly of that type, sometimes any JSON at all. */
function valueFor(type: GraphQLInputType, name: string, depth = 0): fc.Arbitrary<unknown> {
  const typed = typedValueFor(type, name, depth);
  return fc.oneof({ weight: 8, arbitrary: typed }, { weight: 1, arbitrary: anyJson });
}

function typedValueFor(type: GraphQLInputType, name: string, depth: number): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return typedValueFor(type.ofType, name, depth);
  const nullable = (arb: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 6, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) });
  if (isListType(type)) {
    return nullable(fc.array(valueFor(type.ofType, name, depth + 1), { maxLength: 4 }));
  }
  if (isEnumType(type)) {
    return nullable(fc.oneof(fc.constantFrom(...type.getValues().map((v) => v.name)), hostile));
  }
  if (isInputObjectType(type)) {
    if (depth > 3) return fc.constant(null);
    const fields = Object.values(type.getFields());
    return nullable(
      fc.record(
        Object.fromEntries(fields.map((f) => [f.name, valueFor(f.type, f.name, depth + 1)])),
        { requiredKeys: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name) },
      ),
    );
  }
  switch (type.name) {
    case 'Int':
      return anyInt;
    case 'Boolean':
      return nullable(fc.boolean());
    case 'JSON':
      return anyJson;
    case 'File':
      return anyJson;
    case 'ID':
      return nullable(idLike(...knownIds));
    default:
      return nullable(name === 'after' ? anyCursor : hostile);
  }
}

/** `{ __typename <leaf fields> }` of the field's type, or nothing for a leaf. */
function selectionFor(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (isLeafType(type) || !isObjectType(type)) return '';
  const leaves = Object.values(type.getFields())
    .filter((f) => isLeafType(getNamedType(f.type)) && f.args.length === 0)
    .map((f) => f.name);
  return `{ __typename ${leaves.join(' ')} }`;
}

function operationFor(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>): string {
  const declarations = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const argumentList = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  return `${kind} Fuzz${declarations === '' ? '' : `(${declarations})`} { ${field.name}${
    argumentList === '' ? '' : `(${argumentList})`
  } ${selectionFor(field)} }`;
}

function variablesFor(
  field: GraphQLField<unknown, unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(field.args.map((a) => [a.name, valueFor(a.type, a.name)])), {
    requiredKeys: [],
  });
}

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

for (const kind of ['query', 'mutation'] as const) {
  const root = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
  describe(`every ${kind} field with random variables`, () => {
    for (const field of Object.values(root?.getFields() ?? {})) {
      it(`${field.name}: no 500, contract codes only, safe upstream requests, still serving`, () =>
        check(
          variablesFor(field),
          async (variables) => {
            const marks = mark(stack);
            await send(stack, operationFor(kind, field), variables);
            expectSafeUpstreamRequests(stack, marks);
            await expectServing(stack);
          },
          25,
        ));
    }
  });
}
