/**
 * `Query.appliances`: which generation answers behind each upstream and
 * whether its last call reached it, from what the gateway already knows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, upstreamCalls, type Stack } from '../helpers/stack.ts';

const appliances = '{ appliances { service generation up } }';

let stack: Stack;
beforeAll(async () => {
  // the generations are left to discovery: VRA_API_GENERATION and NSX_API unset
  stack = await startStack({
    env: { UPSTREAM_RETRIES: '0' },
    configure: (config) => ({
      ...config,
      vra: { ...config.vra, generation: undefined },
      nsx: { ...config.nsx, api: undefined },
    }),
  });
});
afterAll(async () => {
  await stack.close();
});

describe('appliances', () => {
  it('knows nothing before any call, and asks no appliance to answer', async () => {
    const before = upstreamCalls(stack);
    const answer = await stack.gql(appliances);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      appliances: [
        { service: 'vro', generation: null, up: null },
        { service: 'vra', generation: null, up: null },
        { service: 'nsx', generation: null, up: null },
      ],
    });
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('tells the generations discovery found and that the last calls reached each appliance', async () => {
    const read = await stack.gql(
      '{ workflows(first: 1) { totalCount } ipSets { id } entitledCatalogItems(first: 1) { totalCount } }',
    );
    expect(read.errors).toBeUndefined();
    const before = upstreamCalls(stack);
    const answer = await stack.gql(appliances);
    expect(answer.data).toEqual({
      appliances: [
        { service: 'vro', generation: null, up: true },
        { service: 'vra', generation: '7', up: true },
        { service: 'nsx', generation: 'v', up: true },
      ],
    });
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('says an appliance is down once its last call could not reach it', async () => {
    stack.vro.faults.inject({ fault: { kind: 'reset' }, times: 1 });
    const failed = await stack.gql('{ workflows(first: 1) { totalCount } }');
    expect(failed.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    const answer = await stack.gql<{ appliances: Array<{ service: string; up: boolean }> }>(
      appliances,
    );
    expect(answer.data?.appliances.map((a) => [a.service, a.up])).toEqual([
      ['vro', false],
      ['vra', true],
      ['nsx', true],
    ]);
  });
});
