import { afterEach, describe, expect, it } from 'vitest';
import type { VraSimulator } from '../../simulators/vra/v7/index.ts';
import { startStack, type Stack } from '../helpers/stack.ts';
import { tokensPath, userBearer } from '../helpers/vra.ts';

// A credential an appliance refuses loses everything kept for it, whichever
// client keeps it: with VRO_AUTH_MODE=vra-token a person's vRA bearer is
// their vRO credential too, so vRO's kept workflow details go with it.

const alice = { username: 'alice', password: 'alice-secret-1' };
const withInputs = '{ workflows(first: 3) { nodes { id inputParameters { name } } } }';
const twoWithInputs = '{ workflows(first: 2) { nodes { id inputParameters { name } } } }';

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

async function stack(): Promise<Stack> {
  const linked: { vra?: VraSimulator } = {};
  const s = await startStack({
    env: { VRO_AUTH_MODE: 'vra-token' },
    vro: { users: [alice], bearerUser: (token) => linked.vra?.tokenUser(token) },
    vra: { users: [alice] },
  });
  linked.vra = s.vra;
  stacks.push(s);
  return s;
}

async function keptDetails(s: Stack): Promise<number> {
  const text = await (await s.fetch('/metrics')).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('gateway_cache_entries{cache="vro_workflow_details"}'));
  return Number(line?.split(' ')[1]);
}

async function revoke(s: Stack, bearer: string): Promise<void> {
  const token = bearer.slice('Bearer '.length);
  const answer = await fetch(new URL(`${tokensPath}/${token}`, s.vra.url), { method: 'DELETE' });
  expect(answer.status).toBe(204);
}

/** Three details kept for alice's bearer and two for the service account. */
async function warm(s: Stack, bearer: string): Promise<void> {
  const mine = await s.gql(withInputs, {}, { 'x-vra-authorization': bearer });
  expect(mine.errors).toBeUndefined();
  const service = await s.gql(twoWithInputs);
  expect(service.errors).toBeUndefined();
  expect(await keptDetails(s)).toBe(5);
}

describe('a credential refused by one appliance', () => {
  it('loses the vRO workflow details kept for it when vRA refuses it (the same bearer), and no one else’s', async () => {
    const s = await stack();
    const bearer = await userBearer(s.vra, alice);
    await warm(s, bearer);
    await revoke(s, bearer);
    const refused = await s.gql(
      '{ catalogItems(first: 1) { totalCount } }',
      {},
      {
        'x-vra-authorization': bearer,
      },
    );
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(await keptDetails(s)).toBe(2);
  });

  it('loses the vRO workflow details kept for it when vRO refuses it', async () => {
    const s = await stack();
    const bearer = await userBearer(s.vra, alice);
    await warm(s, bearer);
    await revoke(s, bearer);
    const refused = await s.gql(withInputs, {}, { 'x-vra-authorization': bearer });
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(await keptDetails(s)).toBe(2);
  });
});
