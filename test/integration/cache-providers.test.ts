import { afterEach, describe, expect, it, vi } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.ts';
import {
  bearerOf,
  providerListCalls,
  providersPath,
  registerPuts,
  userBearer,
} from '../helpers/vra.ts';

const byName = `query ($name: String!) { providerByName(name: $name) { id name } }`;

const stacks: Stack[] = [];
async function stack(env: Record<string, string> = {}): Promise<Stack> {
  const s = await startStack({ env, vra: { users } });
  stacks.push(s);
  return s;
}
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

const users = [
  { username: 'alice@vsphere.local', password: 'alice-pw' },
  { username: 'bob@vsphere.local', password: 'bob-pw' },
];

async function expectProvider(s: Stack, name: string, headers?: Record<string, string>) {
  const answer = await s.gql<any>(byName, { name }, headers);
  expect(answer.errors).toBeUndefined();
  expect(answer.data?.providerByName?.name).toBe(name);
}

async function metricLines(s: Stack, prefix: string): Promise<string[]> {
  const text = await (await s.fetch('/metrics')).text();
  return text.split('\n').filter((line) => line.startsWith(prefix));
}

describe('the provider list cache', () => {
  it('answers repeated providerByName operations within its time with one provider call', async () => {
    const s = await stack();
    await expectProvider(s, 'iaas-service');
    await expectProvider(s, 'Blueprint Service');
    await expectProvider(s, 'iaas-service');
    const items = await s.gql<any>('{ catalogItems(first: 3) { nodes { provider { name } } } }');
    expect(items.errors).toBeUndefined();
    expect(items.data?.catalogItems.nodes[0].provider.name).toBeTypeOf('string');
    expect(providerListCalls(s.vra)).toHaveLength(1);
    expect(providerListCalls(s.vra)[0]?.query.toString()).toBe('page=1&limit=5000');

    expect(await metricLines(s, 'gateway_cache_lookups_total')).toEqual(
      expect.arrayContaining([
        'gateway_cache_lookups_total{cache="vra_providers",result="miss"} 1',
        'gateway_cache_lookups_total{cache="vra_providers",result="hit"} 3',
      ]),
    );
    expect(await metricLines(s, 'gateway_cache_entries')).toContain(
      'gateway_cache_entries{cache="vra_providers"} 1',
    );
  });

  it('reads the list again once its time is up', async () => {
    const s = await stack({ PROVIDER_CACHE_TTL_MS: '30000' });
    vi.useFakeTimers({ toFake: ['Date'] });
    await expectProvider(s, 'iaas-service');
    vi.setSystemTime(Date.now() + 29_999);
    await expectProvider(s, 'iaas-service');
    expect(providerListCalls(s.vra)).toHaveLength(1);
    vi.setSystemTime(Date.now() + 1);
    await expectProvider(s, 'iaas-service');
    expect(providerListCalls(s.vra)).toHaveLength(2);
    await expectProvider(s, 'iaas-service');
    expect(providerListCalls(s.vra)).toHaveLength(2);
  });

  it('keeps one entry per credential: each user’s first operation goes to vRA with that user’s own bearer', async () => {
    const s = await stack();
    const [alice, bob] = [await userBearer(s.vra, users[0]!), await userBearer(s.vra, users[1]!)];
    expect(s.vra.tokenUser(alice.slice('Bearer '.length))).toBe(users[0]!.username);
    expect(s.vra.tokenUser(bob.slice('Bearer '.length))).toBe(users[1]!.username);

    await expectProvider(s, 'iaas-service', { 'x-vra-authorization': alice });
    await expectProvider(s, 'iaas-service', { 'x-vra-authorization': alice });
    expect(providerListCalls(s.vra).map((r) => `Bearer ${bearerOf(r)}`)).toEqual([alice]);

    await expectProvider(s, 'iaas-service', { 'x-vra-authorization': bob });
    await expectProvider(s, 'iaas-service', { 'x-vra-authorization': bob });
    expect(providerListCalls(s.vra).map((r) => `Bearer ${bearerOf(r)}`)).toEqual([alice, bob]);

    await expectProvider(s, 'iaas-service');
    expect(providerListCalls(s.vra)).toHaveLength(3);
    const service = providerListCalls(s.vra)[2];
    expect([alice, bob]).not.toContain(`Bearer ${bearerOf(service)}`);
    expect(await metricLines(s, 'gateway_cache_entries')).toContain(
      'gateway_cache_entries{cache="vra_providers"} 3',
    );
  });

  it('never serves a rejected user bearer from another user’s entry', async () => {
    const s = await stack();
    await expectProvider(s, 'iaas-service');
    const answer = await s.gql<any>(
      byName,
      { name: 'iaas-service' },
      { 'x-vra-authorization': 'Bearer not-a-vra-token' },
    );
    expect(answer.data?.providerByName).toBeNull();
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(providerListCalls(s.vra)).toHaveLength(2);
  });

  it('shares one provider call between concurrent operations of one credential', async () => {
    const s = await stack();
    s.vra.faults.inject({ path: providersPath, fault: { kind: 'delay', ms: 100 } });
    await Promise.all([
      expectProvider(s, 'iaas-service'),
      expectProvider(s, 'Software Service'),
      expectProvider(s, 'Container Service'),
    ]);
    expect(providerListCalls(s.vra)).toHaveLength(1);
  });

  it('keeps no failure: the operation after a failed read goes to vRA again', async () => {
    const s = await stack();
    s.vra.faults.inject({ path: providersPath, fault: { kind: 'status', status: 500 }, times: 1 });
    const failed = await s.gql<any>(byName, { name: 'iaas-service' });
    expect(failed.data?.providerByName).toBeNull();
    expect(failed.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_ERROR');
    await expectProvider(s, 'iaas-service');
    await expectProvider(s, 'iaas-service');
    expect(providerListCalls(s.vra)).toHaveLength(2);
  });

  it('forgets the list of a credential whose registration finds the provider gone', async () => {
    const s = await stack();
    await expectProvider(s, 'Software Service');
    const gone = s.vra.providers.findIndex((p) => p.name === 'Software Service');
    s.vra.providers.splice(gone, 1);
    const input = {
      virtualMachineTemplateId: 'c0ffee00-0000-4000-8000-000000000001',
      name: 'Cached',
      description: 'published against a provider that has just gone',
      iconId: 'cafe_default_icon_genericCatalogItem',
      catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
      outputResourceTypeId: 'Infrastructure.Virtual',
      organization: { tenantRef: s.vra.tenant, tenantLabel: s.vra.tenant },
      providerName: 'Software Service',
    };
    const publish = `mutation ($input: PublishBlueprintInput!) {
      publishBlueprint(input: $input) { catalogItem { id } }
    }`;
    const stale = await s.gql<any>(publish, { input });
    expect(stale.errors?.[0]?.extensions?.['code']).toBe('NOT_FOUND');
    expect(registerPuts(s.vra)).toHaveLength(1);

    const fresh = await s.gql<any>(publish, { input });
    expect(fresh.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(registerPuts(s.vra)).toHaveLength(1);
    expect(providerListCalls(s.vra)).toHaveLength(2);
  });

  it('is off with PROVIDER_CACHE_TTL_MS=0: one provider call per operation', async () => {
    const s = await stack({ PROVIDER_CACHE_TTL_MS: '0' });
    await expectProvider(s, 'iaas-service');
    await expectProvider(s, 'iaas-service');
    await expectProvider(s, 'Blueprint Service');
    expect(providerListCalls(s.vra)).toHaveLength(3);
    expect(await metricLines(s, 'gateway_cache_lookups_total{cache="vra_providers"')).toEqual([]);
  });
});
