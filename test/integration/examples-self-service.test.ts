import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExamples, type Example } from '../helpers/examples.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const examples = readExamples();
const byName = (name: string): Example => {
  const example = examples.find((e) => e.name === name);
  if (example === undefined) throw new Error(`no example ${name}`);
  return example;
};

const step = 1000;

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  stack = await startStack({ vra: { manualClock: true, requestStepMs: step } });
  server = await listen(stack.gateway);
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

async function run(name: string, variables: Record<string, unknown>): Promise<any> {
  const answer = await stack.gql<any>(byName(name).document, variables);
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
      stack.vra.advance(step);
    }
  } finally {
    sse.close();
  }
}

describe('the self-service examples, chained as a user would', () => {
  it('orders an item, follows it to SUCCESSFUL, lists what it built and powers the machine off', async () => {
    const order = byName('order-catalog-item');
    const placed = await run(order.name, order.variables ?? {});
    const requestId = placed.requestCatalogItem.request.id as string;
    expect(placed.requestCatalogItem.request.state).toBe('SUBMITTED');

    const events = await follow(requestId);
    expect(events.map((e: { state: string }) => e.state)).toEqual([
      'SUBMITTED',
      'IN_PROGRESS',
      'SUCCESSFUL',
    ]);
    expect(events.at(-1).final).toBe(true);

    const built = await run('catalog-request-resources', { requestId });
    const machine = built.catalogRequest.resources.find(
      (r: { resourceType: string }) => r.resourceType === 'Infrastructure.Virtual',
    );
    expect(machine.name).toMatch(/^atlas-\d{4}$/);
    expect(machine.data).toMatchObject({ MachineCPU: 2, MachineMemory: 4096, MachineStatus: 'On' });
    const powerOff = machine.actions.find((a: { name: string }) => a.name === 'Power Off');

    const acted = await run('run-resource-action', {
      input: { resourceId: machine.id, actionId: powerOff.id },
    });
    const actionEvents = await follow(acted.requestResourceAction.request.id as string);
    expect(actionEvents.at(-1)).toMatchObject({ state: 'SUCCESSFUL', final: true });

    const after = await run('catalog-request-resources', { requestId });
    const off = after.catalogRequest.resources.find((r: { id: string }) => r.id === machine.id);
    expect(off.data.MachineStatus).toBe('Off');
    expect(off.actions.map((a: { name: string }) => a.name)).toContain('Power On');

    const mine = await run('catalog-requests', { first: 2 });
    expect(mine.catalogRequests.nodes.map((n: { id: string }) => n.id)).toEqual([
      acted.requestResourceAction.request.id,
      requestId,
    ]);
  });
});
