import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExamples, type Example } from '../helpers/examples.ts';
import { generations, type Generation, type GenerationStack } from '../helpers/generations.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen } from '../helpers/stack.ts';

const examples = readExamples();
const byName = (name: string): Example => {
  const example = examples.find((e) => e.name === name);
  if (example === undefined) throw new Error(`no example ${name}`);
  return example;
};

const step = 1000;

/** What the order of order-catalog-item builds, as each generation describes its machine. */
const built: Record<Generation['name'], { name: RegExp; data: Record<string, unknown> }> = {
  'vRA 7': {
    name: /^atlas-\d{4}$/,
    data: { MachineCPU: 2, MachineMemory: 4096, MachineStatus: 'On' },
  },
  // vRA 8 names a machine after its template's resource; the host name comes from the inputs
  'vRA 8': {
    name: /^Cloud_vSphere_Machine_1$/,
    data: { cpuCount: 2, powerState: 'ON', hostname: 'atlas-1' },
  },
};

describe.each(generations)('the self-service examples on $name', (generation) => {
  let harness: GenerationStack;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    harness = await generation.start({ manualClock: true, requestStepMs: step });
    server = await listen(harness.stack.gateway);
  });
  afterAll(async () => {
    await server.close();
    await harness.close();
  });

  async function run(name: string, variables: Record<string, unknown>): Promise<any> {
    const answer = await harness.stack.gql<any>(byName(name).document, variables);
    expect(answer.errors, name).toBeUndefined();
    return answer.data;
  }

  /** Every `next` event of the follow example for a request, until the stream completes. */
  async function follow(requestId: string): Promise<any[]> {
    const sse = await SseSubscription.open(server.url, byName('follow-catalog-request').document, {
      requestId,
    });
    const seen: any[] = [];
    try {
      for (;;) {
        const event = await sse.next();
        if (event === null || event.event === 'complete') return seen;
        expect(event.data.errors).toBeUndefined();
        seen.push(event.data.data.catalogRequest);
        // the simulator's clock moves one state per event: no state can be missed
        harness.vra.advance(step);
      }
    } finally {
      sse.close();
    }
  }

  it("orders with values that are fields of the item's form, as the form example draws it", async () => {
    const { input } = generation.variablesOf(byName('order-catalog-item')) as {
      input: { catalogItemId: string; values: Array<{ name: string; value: unknown }> };
    };
    expect(input.catalogItemId).toBe(generation.ids.centos.id);
    const drawn = await run(
      'catalog-item-request-form',
      generation.variablesOf(byName('catalog-item-request-form')) ?? {},
    );
    const item = drawn.entitledCatalogItems.nodes.find(
      (n: { id: string }) => n.id === input.catalogItemId,
    );
    const fields = new Map(
      (item.form.fields as Array<{ name: string; type: string; readOnly: boolean }>).map((f) => [
        f.name,
        f,
      ]),
    );
    expect(input.values.length).toBeGreaterThan(0);
    for (const { name, value } of input.values) {
      const field = fields.get(name);
      expect(field, name).toBeDefined();
      expect(field!.readOnly, name).toBe(false);
      expect(typeof value === 'number' ? ['integer', 'number'] : ['string'], name).toContain(
        field!.type,
      );
    }
  });

  it('orders an item, follows it to SUCCESSFUL, lists what it built and powers the machine off', async () => {
    const { ids } = generation;
    const order = byName('order-catalog-item');
    const placed = await run(order.name, generation.variablesOf(order) ?? {});
    const requestId = placed.requestCatalogItem.request.id as string;
    expect(placed.requestCatalogItem.request.state).toBe('SUBMITTED');

    const events = await follow(requestId);
    expect(events.map((e: { state: string }) => e.state)).toEqual([
      'SUBMITTED',
      'IN_PROGRESS',
      'SUCCESSFUL',
    ]);
    expect(events.at(-1).final).toBe(true);

    const resources = await run('catalog-request-resources', { requestId });
    const machine = resources.catalogRequest.resources.find(
      (r: { resourceType: string }) => r.resourceType === ids.machineType,
    );
    expect(machine.name).toMatch(built[generation.name].name);
    expect(machine.data).toMatchObject(built[generation.name].data);
    const powerOff = machine.actions.find((a: { name: string }) => a.name === 'Power Off');

    const acted = await run('run-resource-action', {
      input: { resourceId: machine.id, actionId: powerOff.id },
    });
    const actionEvents = await follow(acted.requestResourceAction.request.id as string);
    expect(actionEvents.at(-1)).toMatchObject({ state: 'SUCCESSFUL', final: true });

    const after = await run('catalog-request-resources', { requestId });
    const off = after.catalogRequest.resources.find((r: { id: string }) => r.id === machine.id);
    expect(off.data[ids.power.field]).toBe(ids.power.off);
    expect(off.actions.map((a: { name: string }) => a.name)).toContain('Power On');

    const calls = harness.vra.requests.length;
    const mine = await run('catalog-requests', { first: 2 });
    if (generation.name === 'vRA 7') {
      expect(mine.catalogRequests.nodes.map((n: { id: string }) => n.id)).toEqual([
        acted.requestResourceAction.request.id,
        requestId,
      ]);
    } else {
      // vRA 8 lists requests only per deployment: the newest deployment's last request first
      expect(mine.catalogRequests.nodes[0].id).toBe(acted.requestResourceAction.request.id);
      const [asked, ...more] = harness.vra.requests.slice(calls);
      expect(more).toEqual([]);
      expect(asked?.path).toBe('/deployment/api/deployments');
      expect(asked?.query.get('expand')).toBe('lastRequest');
      expect(asked?.query.get('$orderby')).toBe('createdAt desc');
      expect(asked?.query.get('$top')).toBe('2');
    }
    expect(harness.vra.refusals()).toEqual([]);
  });
});
