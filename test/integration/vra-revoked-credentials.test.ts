import { afterEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.ts';
import {
  bearerOf,
  catalogItemsPath,
  providerListCalls,
  tokenRequests,
  tokensPath,
  userBearer,
} from '../helpers/vra.ts';

const alice = { username: 'alice@vsphere.local', password: 'alice-pw' };
const bob = { username: 'bob@vsphere.local', password: 'bob-pw' };
const byName = `query ($name: String!) { providerByName(name: $name) { id name } }`;
const items = '{ catalogItems(first: 1) { totalCount } }';

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

async function stack(): Promise<Stack> {
  const s = await startStack({ vra: { users: [alice, bob] } });
  stacks.push(s);
  return s;
}

async function revoke(s: Stack, bearer: string): Promise<void> {
  const token = bearer.slice('Bearer '.length);
  const answer = await fetch(new URL(`${tokensPath}/${token}`, s.vra.url), { method: 'DELETE' });
  expect(answer.status).toBe(204);
}

describe('a credential vRA refuses', () => {
  it("loses its cached provider list: after a 401 to a user's bearer, the next provider lookup asks vRA again and is refused", async () => {
    const s = await stack();
    const [aliceBearer, bobBearer] = [await userBearer(s.vra, alice), await userBearer(s.vra, bob)];
    for (const bearer of [aliceBearer, bobBearer]) {
      const warm = await s.gql<any>(
        byName,
        { name: 'iaas-service' },
        { 'x-vra-authorization': bearer },
      );
      expect(warm.data?.providerByName?.name).toBe('iaas-service');
    }
    expect(providerListCalls(s.vra)).toHaveLength(2);

    await revoke(s, aliceBearer);
    const refused = await s.gql<any>(items, {}, { 'x-vra-authorization': aliceBearer });
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');

    const after = await s.gql<any>(
      byName,
      { name: 'iaas-service' },
      { 'x-vra-authorization': aliceBearer },
    );
    expect(after.data?.providerByName ?? null).toBeNull();
    expect(after.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    const calls = providerListCalls(s.vra);
    expect(calls).toHaveLength(3);
    expect(`Bearer ${bearerOf(calls[2])}`).toBe(aliceBearer);

    // Another user's entry stays: bob's lookup is still served from the cache.
    const bobAgain = await s.gql<any>(
      byName,
      { name: 'iaas-service' },
      { 'x-vra-authorization': bobBearer },
    );
    expect(bobAgain.data?.providerByName?.name).toBe('iaas-service');
    expect(providerListCalls(s.vra)).toHaveLength(3);
  });

  it('drops the service account’s cached list and token when vRA refuses even a freshly obtained token', async () => {
    const s = await stack();
    const warm = await s.gql<any>(byName, { name: 'iaas-service' });
    expect(warm.errors).toBeUndefined();
    expect(tokenRequests(s.vra)).toHaveLength(1);
    expect(providerListCalls(s.vra)).toHaveLength(1);

    // The account is refused: the cached token, then the renewed one.
    s.vra.faults.inject({
      path: catalogItemsPath,
      fault: { kind: 'status', status: 401 },
      times: 2,
    });
    const refused = await s.gql<any>(items);
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(tokenRequests(s.vra)).toHaveLength(2);

    // Accepted again: the list is read afresh, with a token obtained afresh.
    const again = await s.gql<any>(byName, { name: 'iaas-service' });
    expect(again.data?.providerByName?.name).toBe('iaas-service');
    expect(providerListCalls(s.vra)).toHaveLength(2);
    expect(tokenRequests(s.vra)).toHaveLength(3);
    expect(bearerOf(providerListCalls(s.vra)[1])).not.toBe(bearerOf(providerListCalls(s.vra)[0]));
  });
});
