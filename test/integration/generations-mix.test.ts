import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createGateway, type Gateway } from '../../src/server.ts';
import { startSimulators, type StartedSimulators } from '../../simulators/index.ts';

let simulators: StartedSimulators | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await simulators?.close();
  gateway = undefined;
  simulators = undefined;
});

/** A gateway on built-in simulators of the generations given, left to find them out itself. */
async function gatewayOn(env: Record<string, string>): Promise<Gateway> {
  simulators = await startSimulators(loadConfig(env));
  const { config } = simulators;
  gateway = createGateway(
    {
      ...config,
      vra: { ...config.vra, generation: undefined },
      nsx: { ...config.nsx, api: undefined },
    },
    { logger: createLogger('silent') },
  );
  return gateway;
}

async function query(on: Gateway, text: string): Promise<{ data?: any; errors?: unknown[] }> {
  const response = await on.yoga.fetch(
    new Request('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-graphql-csrf': '1' },
      body: JSON.stringify({ query: text }),
    }),
  );
  return (await response.json()) as { data?: any; errors?: unknown[] };
}

const both =
  '{ catalogItems(first: 2) { totalCount nodes { name } } ipSets { id addresses } edges { id type } }';

describe('one gateway over a mix of generations, each found out by asking', () => {
  it('serves vRA 8 beside NSX-v', async () => {
    const answer = await query(await gatewayOn({ VRA_API_GENERATION: '8' }), both);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.catalogItems.totalCount).toBeGreaterThan(0);
    expect(answer.data.ipSets.length).toBeGreaterThan(0);
    // NSX-v edges, not Tier-1 gateways
    expect(answer.data.edges.every((edge: { type: string }) => edge.type !== 'tier1')).toBe(true);
  });

  it('serves vRA 7 beside NSX-T', async () => {
    const answer = await query(await gatewayOn({ NSX_API: 't' }), both);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.catalogItems.totalCount).toBeGreaterThan(0);
    expect(answer.data.ipSets.length).toBeGreaterThan(0);
    expect(answer.data.edges.length).toBeGreaterThan(0);
    expect(answer.data.edges.every((edge: { type: string }) => edge.type === 'tier1')).toBe(true);
  });
});
