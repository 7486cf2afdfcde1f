/**
 * Hostile filters, cursors, run inputs and package uploads for the
 * orchestration server: vRO gets exactly the conditions asked for, JSON run
 * bodies that carry each value intact, and one well-formed multipart part.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConditions } from '../../simulators/vro/conditions.ts';
import { parseMultipart } from '../../simulators/vro/multipart.ts';
import {
  anyCursor,
  anyInt,
  anyJson,
  checkAnswer,
  refusedByGateway,
  expectSafeUpstreamRequests,
  expectServing,
  hostile,
  mark,
  maybe,
  reachingChecks,
  send,
  since,
  usually,
} from '../helpers/property.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const { hit, check: checkReaching } = reachingChecks('runs that reached vRO');

describe('workflows with hostile filters, sizes and cursors', () => {
  const filterKeys = [
    ['name', 'name', '='],
    ['nameContains', 'name', '~'],
    ['categoryName', 'categoryName', '='],
    ['version', 'version', '='],
  ] as const;

  it('sends exactly the conditions asked for, or refuses before calling vRO', () =>
    checkReaching(
      fc.record({
        filter: maybe(
          fc.record(
            {
              name: maybe(hostile),
              nameContains: maybe(hostile),
              categoryName: maybe(hostile),
              version: maybe(hostile),
            },
            { requiredKeys: [] },
          ),
        ),
        first: usually(fc.integer({ min: 1, max: 1000 }), anyInt),
        after: usually(fc.constant(null), anyCursor),
      }),
      async (variables) => {
        const marks = mark(stack);
        const answer = await send(
          stack,
          'query ($filter: WorkflowFilter, $first: Int, $after: String) { workflows(filter: $filter, first: $first, after: $after) { totalCount nodes { id name } pageInfo { endCursor } } }',
          variables,
        );
        expectSafeUpstreamRequests(stack, marks);
        const [call, ...more] = since(stack, marks).vro;
        expect(more).toEqual([]);
        if (refusedByGateway(answer)) expect(call).toBeUndefined();
        if (call !== undefined) {
          hit();
          const expected = filterKeys.flatMap(([key, field, operator]) => {
            const value = variables.filter?.[key];
            return typeof value === 'string' ? [{ field, operator, value }] : [];
          });
          const raw = call.query.get('conditions');
          expect(raw === null ? [] : parseConditions(raw)).toEqual(expected);
          // an explicit `first: null` means the default page size (src/resolvers/connection.ts)
          expect(call.query.get('maxResult')).toBe(
            variables.first === null ? '50' : String(variables.first as number),
          );
        }
        await expectServing(stack);
      },
    ));
});

describe('runWorkflow with inputs of every type and random values', () => {
  const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
  const declared = [
    ['text', 'string'],
    ['count', 'number'],
    ['flag', 'boolean'],
    ['when', 'Date'],
    ['names', 'Array/string'],
    ['matrix', 'Array/Array/number'],
    ['props', 'Properties'],
    ['secret', 'SecureString'],
    ['vm', 'VC:VirtualMachine'],
    ['vms', 'Array/VC:VirtualMachine'],
  ] as const;
  /** A value shaped for the type (with hostile strings inside), or anything at all. */
  const valueFor = (type: string): fc.Arbitrary<unknown> => {
    const shaped: Record<string, fc.Arbitrary<unknown>> = {
      string: hostile,
      securestring: hostile,
      number: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer()),
      boolean: fc.boolean(),
      date: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom('2024-05-01T14:30:00+02:00', '2024-13-01T00:00:00Z', '0000-01-01T00:00Z'),
      ),
      'array/string': fc.array(fc.oneof(hostile, fc.constant(null)), { maxLength: 3 }),
      'array/array/number': fc.array(fc.array(fc.integer(), { maxLength: 3 }), { maxLength: 3 }),
      properties: fc.dictionary(hostile, fc.oneof(hostile, fc.integer(), fc.boolean()), {
        maxKeys: 3,
      }),
      'vc:virtualmachine': fc.oneof(hostile, fc.record({ id: hostile })),
      'array/vc:virtualmachine': fc.array(fc.oneof(hostile, fc.record({ id: hostile })), {
        maxLength: 2,
      }),
    };
    return usually(shaped[type.toLowerCase()] ?? anyJson, anyJson);
  };
  const input = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom(...declared).chain(([name, type]) =>
        fc.record({
          name: fc.constant(name),
          type: usually(fc.constantFrom(type, type.toUpperCase(), type.toLowerCase()), hostile),
          value: valueFor(type),
        }),
      ),
    },
    { weight: 1, arbitrary: fc.record({ name: hostile, type: hostile, value: anyJson }) },
  );

  it('posts JSON that vRO parses and that carries every string value intact', () =>
    checkReaching(
      fc.record({
        workflowId: usually(fc.constant(echo), hostile),
        inputs: fc.uniqueArray(input, { maxLength: 4, selector: (i) => i.name }),
      }),
      async (variables) => {
        const marks = mark(stack);
        const answer = await send(
          stack,
          'mutation ($workflowId: ID!, $inputs: [WorkflowParameterInput!]) { runWorkflow(workflowId: $workflowId, inputs: $inputs) { execution { id state inputParameters { name type value } } } }',
          variables,
        );
        expectSafeUpstreamRequests(stack, marks);
        const post = since(stack, marks).vro.find((r) => r.method === 'POST');
        if (post !== undefined) {
          hit();
          const body = JSON.parse(post.body.toString('utf8')) as {
            parameters: Array<{ name: string; value: Record<string, { value?: unknown }> }>;
          };
          for (const sent of variables.inputs) {
            if (typeof sent.value !== 'string' || !/^(string|securestring)$/i.test(sent.type)) {
              continue;
            }
            const wire = body.parameters.find((p) => p.name === sent.name)?.value;
            expect(wire?.['string']?.value ?? wire?.['secure-string']?.value).toBe(sent.value);
          }
        }
        if (refusedByGateway(answer)) expect(post).toBeUndefined();
        await expectServing(stack);
      },
    ));
});

describe('importPackage with random files, names and options', () => {
  it('sends one well-formed multipart part named file, or refuses', () =>
    checkReaching(
      fc.record({
        bytes: fc.uint8Array({ minLength: 0, maxLength: 64 }),
        fileName: usually(fc.constant('x.package'), hostile),
        tagImportMode: usually(
          fc.constantFrom(
            'DO_NOT_IMPORT',
            'IMPORT_AND_OVERWRITE_EXISTING_VALUE',
            'IMPORT_BUT_PRESERVE_EXISTING_VALUE',
          ),
          fc.oneof(hostile, fc.constantFrom('Import and overwrite existing values', 'DoNotImport')),
        ),
        overwrite: usually(fc.boolean(), anyJson),
      }),
      async ({ bytes, fileName, tagImportMode, overwrite }) => {
        const marks = mark(stack);
        const form = new FormData();
        form.append(
          'operations',
          JSON.stringify({
            query:
              'mutation ($file: File!, $mode: TagImportMode, $overwrite: Boolean) { importPackage(file: $file, tagImportMode: $mode, overwrite: $overwrite) { imported packageName } }',
            variables: { file: null, mode: tagImportMode, overwrite },
          }),
        );
        form.append('map', JSON.stringify({ 0: ['variables.file'] }));
        form.append('0', new File([bytes], fileName));
        const response = await stack.fetch('/graphql', { method: 'POST', body: form });
        await checkAnswer(response);
        expectSafeUpstreamRequests(stack, marks);
        for (const request of since(stack, marks).vro) {
          hit();
          const parts = parseMultipart(request.headers['content-type'], request.body);
          expect(parts).not.toHaveProperty('error');
          expect((parts as Array<{ name: string }>).map((p) => p.name)).toEqual(['file']);
          expect([
            'DoNotImport',
            'ImportAndOverwriteExistingValue',
            'ImportButPreserveExistingValue',
          ]).toContain(request.query.get('tagImportMode'));
        }
        await expectServing(stack);
      },
    ));
});
