/**
 * Hostile sizes, cursors, ids, names and registration inputs for the catalog
 * service: vRA gets JSON that parses and carries every string intact, on
 * paths whose ids are percent-encoded, and nothing when the gateway refuses.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anyCursor,
  anyInt,
  anyJson,
  check,
  isGatewayRefusal,
  expectSafeUpstreamRequests,
  expectServing,
  hostile,
  idLike,
  mark,
  maybe,
  send,
  since,
  usually,
} from '../helpers/property.ts';
import { startStack, type Stack } from '../helpers/stack.ts';
import { iaasProvider } from '../helpers/vra.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

/** What the gateway sends after a refusal: nothing to the catalog service. */
function expectNoCatalogCallOnBadInput(
  answer: Awaited<ReturnType<typeof send>>,
  marks: ReturnType<typeof mark>,
) {
  const errors = answer.body.errors ?? [];
  if (errors.length > 0 && errors.every(isGatewayRefusal)) {
    const catalog = since(stack, marks).vra.filter((r) => r.path.startsWith('/catalog-service/'));
    expect(catalog.filter((r) => r.method !== 'GET')).toEqual([]);
  }
}

describe('connections with hostile sizes and cursors', () => {
  for (const field of ['providers', 'catalogItems'] as const) {
    it(`${field}: no 500, contract codes only, known routes and query parameters only`, () =>
      check(fc.record({ first: anyInt, after: anyCursor }), async (variables) => {
        const marks = mark(stack);
        await send(
          stack,
          `query ($first: Int, $after: String) { ${field}(first: $first, after: $after) { totalCount nodes { id } pageInfo { hasNextPage endCursor } } }`,
          variables,
        );
        expectSafeUpstreamRequests(stack, marks);
        for (const request of since(stack, marks).vra.filter((r) => r.method === 'GET')) {
          expect(request.query.get('page')).toMatch(/^[1-9]\d*$/);
          expect(request.query.get('limit')).toMatch(/^[1-9]\d*$/);
        }
        await expectServing(stack);
      }));
  }
});

describe('providers by hostile id and name', () => {
  it('provider and providerByName: no 500, null or a provider, safe requests', () =>
    check(
      fc.record({ id: idLike('00000000-0000-4000-8000-000000000000'), name: hostile }),
      async (variables) => {
        const marks = mark(stack);
        const answer = await send(
          stack,
          'query ($id: ID!, $name: String!) { provider(id: $id) { id name } providerByName(name: $name) { id name } }',
          variables,
        );
        expectSafeUpstreamRequests(stack, marks);
        const byName = answer.body.data?.['providerByName'] as { name: string } | null | undefined;
        if (byName) expect(byName.name).toBe(variables.name);
        await expectServing(stack);
      },
    ));
});

describe('registrations with hostile fields', () => {
  const organization = fc.record({
    tenantRef: usually(fc.constant('vsphere.local'), hostile),
    tenantLabel: usually(fc.constant('vsphere.local'), hostile),
    subtenantRef: maybe(hostile),
    subtenantLabel: maybe(hostile),
  });
  const item = {
    name: hostile,
    description: hostile,
    iconId: usually(fc.constant('icon.png'), hostile),
    catalogItemTypeId: usually(
      fc.constant('com.vmware.csp.iaas.blueprint.service.machine'),
      hostile,
    ),
    outputResourceTypeId: usually(fc.constant('Infrastructure.Virtual'), hostile),
    organization,
    forms: maybe(usually(fc.dictionary(hostile, anyJson, { maxKeys: 3 }), anyJson)),
  };
  const bindingId = usually(fc.uuid(), fc.oneof(hostile, fc.constant('vsphere.local!::!CentOS63')));
  const stringFields = [
    'name',
    'description',
    'iconId',
    'catalogItemTypeId',
    'outputResourceTypeId',
  ] as const;

  let reached = 0;
  /** The PUT bodies since `marks` parse and carry every string of `input` as sent. */
  function expectIntactBody(
    marks: ReturnType<typeof mark>,
    input: Record<string, unknown>,
    id: string,
  ) {
    for (const put of since(stack, marks).vra.filter((r) => r.method === 'PUT')) {
      reached += 1;
      const body = JSON.parse(put.body.toString('utf8')) as Record<string, unknown>;
      expect(body['id']).toBe(id);
      for (const field of stringFields) expect(body[field]).toBe(input[field]);
      expect(body['organization']).toEqual({
        subtenantRef: null,
        subtenantLabel: null,
        ...(input['organization'] as object),
      });
      expect(put.rawPath.split('/').at(-1)).toBe(encodeURIComponent(id));
    }
  }

  it('registerCatalogItem: JSON intact on the wire, or refused with nothing sent', async () => {
    reached = 0;
    const providerId = iaasProvider(stack.vra).id;
    await check(
      fc.record({
        providerId: usually(fc.constant(providerId), idLike()),
        bindingId,
        ...item,
      }),
      async (input) => {
        const marks = mark(stack);
        const answer = await send(
          stack,
          'mutation ($input: RegisterCatalogItemInput!) { registerCatalogItem(input: $input) { catalogItem { id name description } } }',
          { input },
        );
        expectSafeUpstreamRequests(stack, marks);
        expectNoCatalogCallOnBadInput(answer, marks);
        expectIntactBody(marks, input, input.bindingId);
        await expectServing(stack);
      },
    );
    expect(reached, 'registrations that reached vRA').toBeGreaterThan(0);
  });

  it('publishBlueprint: JSON intact on the wire, or refused with nothing sent', async () => {
    reached = 0;
    await check(
      fc.record({
        virtualMachineTemplateId: bindingId,
        providerName: maybe(usually(fc.constant('iaas-service'), hostile)),
        ...item,
      }),
      async (input) => {
        const marks = mark(stack);
        const answer = await send(
          stack,
          'mutation ($input: PublishBlueprintInput!) { publishBlueprint(input: $input) { catalogItem { id name provider { name } } } }',
          { input },
        );
        expectSafeUpstreamRequests(stack, marks);
        expectNoCatalogCallOnBadInput(answer, marks);
        expectIntactBody(marks, input, input.virtualMachineTemplateId);
        await expectServing(stack);
      },
    );
    expect(reached, 'publications that reached vRA').toBeGreaterThan(0);
  });
});
