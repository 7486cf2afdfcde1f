/**
 * Every catalog example of examples/ against the strict vRA 8 simulator,
 * which checks each request body against VMware's Swagger subsets
 * (simulators/vra/v8/specs/) and answers 400 to one that fails them. Each
 * runs with its variables as `<name>.vra8.variables.json` has them (else the
 * plain file): what a user runs against `VRA_API_GENERATION=8 npm start`.
 * Only the ids the files leave for the user to fill in (`<request.id …>`, a
 * machine's id) are those of an order placed first, as the files say. What
 * docs/configuration.md ("vRA 8") says vRA 8 answers null or NOT_SUPPORTED
 * is asserted to answer exactly so, with no call to vRA. After each example
 * the simulator must have refused none of the gateway's requests.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  readExamples,
  rootFieldNames,
  rootFieldsOfSchemas,
  rootResponseKeys,
  type Example,
} from '../helpers/examples.ts';
import { vra8, type GenerationStack } from '../helpers/generations.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, type GraphQLAnswer } from '../helpers/stack.ts';

const catalog = rootFieldsOfSchemas('catalog.graphql', 'identity.graphql');
const examples = readExamples().filter((e) =>
  rootFieldNames(e.document).some((field) => catalog.has(field)),
);
const byName = (name: string): Example => {
  const example = examples.find((e) => e.name === name);
  if (example === undefined) throw new Error(`no example ${name}`);
  return example;
};

const { ids } = vra8;

type Outcome =
  /** every root field answered, none null, no error, vRA called */
  | 'complete'
  /** NOT_SUPPORTED naming vRA 8, no call to vRA */
  | 'not-supported'
  /** every catalog root field null without an error, no call to vRA */
  | 'null';

/** What docs/configuration.md ("vRA 8") says vRA 8 answers for each catalog example. */
const outcomes: Record<string, Outcome> = {
  providers: 'null',
  'register-catalog-item': 'not-supported',
};

let harness: GenerationStack;
let server: Awaited<ReturnType<typeof listen>>;
let orders = 0;

beforeAll(async () => {
  harness = await vra8.start({ requestStepMs: 40 });
  server = await listen(harness.stack.gateway);
});
afterAll(async () => {
  await server.close();
  await harness.close();
});
beforeEach(() => {
  harness.vra.refusals().length = 0;
});

async function gql(
  document: string,
  variables?: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<GraphQLAnswer<any>> {
  return harness.stack.gql<any>(document, variables, headers);
}

/** Reads the whole SSE stream of a subscription; its last `next` event as the answer. */
async function subscribe(
  example: Example,
  variables: Record<string, unknown> | undefined,
): Promise<GraphQLAnswer<any>> {
  const sse = await SseSubscription.open(server.url, example.document, variables ?? {}, {
    'x-graphql-csrf': '1',
  });
  try {
    let last: Pick<GraphQLAnswer<any>, 'data' | 'errors'> | undefined;
    for (;;) {
      const event = await sse.next();
      if (event === null || event.event === 'complete') break;
      last = event.data as Pick<GraphQLAnswer<any>, 'data' | 'errors'>;
    }
    expect(last).toBeDefined();
    return { status: sse.status, headers: new Headers(), data: last?.data, errors: last?.errors };
  } finally {
    sse.close();
  }
}

/** The variables file's placeholder for an id the user fills in: `<what to put>`. */
function expectPlaceholder(value: unknown): void {
  expect(value).toMatch(/^<.+>$/);
}

/**
 * Orders as order-catalog-item.vra8.variables.json does, under a deployment
 * name of its own (vRA 8 refuses a name twice), and waits for the request's end.
 */
async function finishedOrder(): Promise<{ requestId: string; machine: any }> {
  orders += 1;
  const order = byName('order-catalog-item');
  const { input } = vra8.variablesOf(order) as { input: Record<string, unknown> };
  const ordered = await gql(order.document, {
    input: { ...input, deploymentName: `examples-${orders}` },
  });
  expect(ordered.errors).toBeUndefined();
  const requestId = ordered.data.requestCatalogItem.request.id as string;
  const end = await subscribe(byName('follow-catalog-request'), { requestId });
  expect(end.data.catalogRequest.state).toBe('SUCCESSFUL');
  const built = await gql(byName('catalog-request-resources').document, { requestId });
  const machine = built.data.catalogRequest.resources.find(
    (r: { resourceType: string }) => r.resourceType === ids.machineType,
  );
  return { requestId, machine };
}

const token = () =>
  harness.vra.tokenOf({ username: harness.vra.username, password: harness.vra.password });

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

describe('vRA 8: the catalog examples', () => {
  it('finds the catalog examples and knows what vRA 8 answers for each', () => {
    expect(examples.map((e) => e.name).sort()).toEqual([
      'as-a-user',
      'catalog-item-request-form',
      'catalog-items',
      'catalog-request-resources',
      'catalog-requests',
      'entitled-catalog-items',
      'explore',
      'follow-catalog-request',
      'order-catalog-item',
      'providers',
      'publish-blueprint',
      'register-catalog-item',
      'run-resource-action',
    ]);
  });

  it('writes down a body that fails the spec (the check the examples are held to is live)', async () => {
    const bearer = await token();
    const response = await fetch(
      new URL(`/catalog/api/items/${ids.centos.id}/request`, harness.vra.url),
      {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ deploymentName: 7, inputs: {} }),
      },
    );
    expect(response.status).toBe(400);
    expect(harness.vra.refusals()).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: `/catalog/api/items/${ids.centos.id}/request`,
      }),
    ]);
  });

  it("draws an item's required input without a default as null, and sends no input left null", async () => {
    const form = await gql(byName('catalog-item-request-form').document, { first: 1 });
    expect(form.errors).toBeUndefined();
    expect(form.data.entitledCatalogItems.nodes[0].requestTemplate.data).toEqual({
      hostname: null,
      size: 'small',
      cpuCount: 1,
    });
    const before = harness.vra.requests.length;
    const ordered = await gql(byName('order-catalog-item').document, {
      input: {
        catalogItemId: ids.centos.id,
        businessGroupId: ids.development.id,
        description: 'left-null',
        data: { hostname: 'left-null-01', size: null },
      },
    });
    expect(ordered.errors).toBeUndefined();
    const [post] = harness.vra.requests
      .slice(before)
      .filter(
        (r) => r.method === 'POST' && r.path === `/catalog/api/items/${ids.centos.id}/request`,
      );
    expect(JSON.parse(post!.body.toString('utf8')).inputs).toEqual({
      hostname: 'left-null-01',
      cpuCount: 1,
    });
    expect(harness.vra.refusals()).toEqual([]);
  });

  it.each(examples.map((e) => [e.name, e] as const))(
    'runs %s against the vRA 8 simulator, which refuses none of its requests',
    async (name, example) => {
      const outcome = outcomes[name] ?? 'complete';
      let variables = vra8.variablesOf(example);
      let headers: Record<string, string> = {};
      if (variables !== undefined && 'requestId' in variables) {
        expectPlaceholder(variables['requestId']);
        variables = { ...variables, requestId: (await finishedOrder()).requestId };
      }
      if (name === 'run-resource-action') {
        const { machine } = await finishedOrder();
        const input = variables?.['input'] as Record<string, unknown>;
        expectPlaceholder(input['resourceId']);
        // the file's action is the machine's Power Off, as vRA 8 names it
        const powerOff = machine.actions.find((a: { name: string }) => a.name === 'Power Off');
        expect(input['actionId']).toBe(powerOff.id);
        variables = { input: { ...input, resourceId: machine.id } };
      }
      let bearer: string | undefined;
      if (name === 'as-a-user') {
        const stack = harness.stack;
        bearer = await token();
        headers = {
          'x-vra-authorization': `Bearer ${bearer}`,
          'x-vro-authorization': basic(stack.vro.username, stack.vro.password),
          'x-nsx-authorization': basic(stack.nsx.username, stack.nsx.password),
        };
      }
      const before = harness.vra.requests.length;
      const answer =
        example.operationType === 'subscription'
          ? await subscribe(example, variables)
          : await gql(example.document, variables, headers);
      const calls = harness.vra.requests.slice(before);
      const fields = rootResponseKeys(example.document);
      if (outcome === 'not-supported') {
        expect(answer.errors?.[0]?.extensions).toMatchObject({
          code: 'NOT_SUPPORTED',
          generation: 'vRA 8',
        });
        expect(answer.data).toBeNull();
        expect(calls).toEqual([]);
      } else if (outcome === 'null') {
        expect(answer.errors).toBeUndefined();
        expect(answer.data).toEqual(Object.fromEntries(fields.map((field) => [field, null])));
        expect(calls).toEqual([]);
      } else {
        expect(answer.errors).toBeUndefined();
        for (const field of fields) {
          // explore asks for the providers beside the rest: null on vRA 8, and no call for them
          if (name === 'explore' && field === 'providers') {
            expect(answer.data[field]).toBeNull();
            continue;
          }
          expect(answer.data?.[field], field).not.toBeNull();
        }
        expect(calls.length).toBeGreaterThan(0);
      }
      if (name === 'explore') {
        expect(calls.filter((c) => c.path.includes('provider'))).toEqual([]);
      }
      if (name === 'catalog-items' || name === 'as-a-user' || name === 'explore') {
        // vRA 8 has no catalog providers: every item's provider is null
        const nodes = answer.data.catalogItems.nodes as Array<{ provider: unknown }>;
        expect(nodes.length).toBeGreaterThan(0);
        for (const node of nodes) expect(node.provider).toBeNull();
      }
      if (bearer !== undefined) {
        // the caller's own vRA 8 bearer, as sent, on every catalog call
        expect(calls.map((c) => c.headers.authorization)).toEqual(
          calls.map(() => `Bearer ${bearer}`),
        );
      }
      if (name === 'order-catalog-item') {
        expect(answer.data.requestCatalogItem.request).toMatchObject({
          catalogItemId: ids.centos.id,
          final: false,
        });
        // the file's values, sent as the cloud template's inputs; its deployment name as given
        const [post] = calls.filter(
          (r) => r.method === 'POST' && r.path === `/catalog/api/items/${ids.centos.id}/request`,
        );
        expect(JSON.parse(post!.body.toString('utf8'))).toMatchObject({
          deploymentName: 'atlas-build-agent',
          projectId: ids.development.id,
          inputs: { hostname: 'atlas', cpuCount: 2 },
        });
      }
      if (name === 'catalog-item-request-form') {
        const fields = answer.data.entitledCatalogItems.nodes[0].form.fields as Array<{
          name: string;
        }>;
        expect(fields.map((f) => f.name)).toEqual(['hostname', 'size', 'cpuCount']);
      }
      if (name === 'follow-catalog-request') {
        expect(answer.data.catalogRequest).toMatchObject({ state: 'SUCCESSFUL', final: true });
        expect(
          answer.data.catalogRequest.resources.map((r: { resourceType: string }) => r.resourceType),
        ).toContain(ids.machineType);
      }
      if (name === 'run-resource-action') {
        expect(answer.data.requestResourceAction.request.final).toBe(false);
      }
      if (name === 'entitled-catalog-items') {
        expect(answer.data.entitledCatalogItems.nodes.map((n: { id: string }) => n.id)).toContain(
          ids.centos.id,
        );
      }
      expect(harness.vra.refusals()).toEqual([]);
    },
  );
});
