import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.ts';
import {
  bearerOf,
  catalogItemsPath,
  expectNoSecrets,
  firstError,
  iaasProvider,
  providersPath,
  registerPuts,
  tokenRequests,
} from '../helpers/vra.ts';
import { vraErrorBody } from '../../simulators/vra/v7/vra-errors.ts';

let stack: Stack;
let seen: number;
const fresh = () => stack.vra.requests.slice(seen);

beforeAll(async () => {
  // Per-request provider look-ups are what these tests check: no list shared across requests.
  stack = await startStack({
    env: { PROVIDER_CACHE_TTL_MS: '0' },
    vra: { password: 'pa55-W0rd-register' },
  });
});
afterAll(async () => {
  await stack.close();
});
beforeEach(() => {
  seen = stack.vra.requests.length;
  stack.vra.setRegisterStatus(200);
  stack.vra.faults.clear();
});

let counter = 0;
/** A fresh binding id per test, so that tests do not update each other's items. */
const nextId = () => `b1d0${(++counter).toString(16).padStart(4, '0')}-0000-4000-8000-00000000abcd`;

const itemFields = `catalogItem {
  id name description iconId catalogItemTypeId outputResourceTypeId
  organization { tenantRef tenantLabel subtenantRef subtenantLabel }
  provider { id name providerTypeId }
}`;

const registerMutation = `mutation ($input: RegisterCatalogItemInput!) {
  registerCatalogItem(input: $input) { ${itemFields} }
}`;
const publishMutation = `mutation ($input: PublishBlueprintInput!) {
  publishBlueprint(input: $input) { ${itemFields} }
}`;

const common = () => ({
  name: 'CentOS 9 Stream',
  description: 'Minimal image',
  iconId: 'centos.png',
  catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
  outputResourceTypeId: 'Infrastructure.Virtual',
  organization: { tenantRef: 'vsphere.local', tenantLabel: 'vsphere.local' },
});

const registerInput = (bindingId = nextId()) => ({
  providerId: iaasProvider(stack.vra).id,
  bindingId,
  ...common(),
});

/** The body the gateway must send for `common()` with this id (docs/upstreams.md, vRA). */
const expectedBody = (id: string) => ({
  id,
  name: 'CentOS 9 Stream',
  description: 'Minimal image',
  iconId: 'centos.png',
  catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
  organization: {
    tenantRef: 'vsphere.local',
    tenantLabel: 'vsphere.local',
    subtenantRef: null,
    subtenantLabel: null,
  },
  outputResourceTypeId: 'Infrastructure.Virtual',
  forms: null,
});

/** The item vRA registered for this binding: its id is vRA's own, never the bindingId. */
const registeredId = (bindingId: string): string => {
  const item = stack.vra.catalogItems.find((i) => i.providerBinding.bindingId === bindingId);
  if (item === undefined) throw new Error(`nothing registered for ${bindingId}`);
  expect(item.id).not.toBe(bindingId);
  return item.id;
};

const expectedItem = (bindingId: string) => ({
  id: registeredId(bindingId),
  name: 'CentOS 9 Stream',
  description: 'Minimal image',
  iconId: 'centos.png',
  catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
  outputResourceTypeId: 'Infrastructure.Virtual',
  organization: {
    tenantRef: 'vsphere.local',
    tenantLabel: 'vsphere.local',
    subtenantRef: null,
    subtenantLabel: null,
  },
  provider: {
    id: iaasProvider(stack.vra).id,
    name: 'iaas-service',
    providerTypeId: 'com.vmware.csp.iaas.blueprint.service',
  },
});

describe('registerCatalogItem', () => {
  it('PUTs exactly the register body of docs/upstreams.md with bearer, Accept and Content-Type, and maps the 200 answer', async () => {
    const input = registerInput();
    const answer = await stack.gql<any>(registerMutation, { input });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.registerCatalogItem.catalogItem).toEqual(expectedItem(input.bindingId));
    const [put] = registerPuts(stack.vra).slice(-1);
    expect(put?.rawPath).toBe(
      `/catalog-service/api/provider/providers/${input.providerId}/catalogItems/${input.bindingId}`,
    );
    expect(put?.headers['content-type']).toBe('application/json');
    expect(put?.headers.accept).toBe('application/json');
    expect(bearerOf(put)).toBe(stack.vra.issuedTokens().at(-1));
    expect(JSON.parse(put!.body.toString('utf8'))).toEqual(expectedBody(input.bindingId));
  });

  it('sends the subtenant and forms when given', async () => {
    const input = {
      ...registerInput(),
      organization: {
        tenantRef: 'vsphere.local',
        tenantLabel: 'vsphere.local',
        subtenantRef: '11ebafdb-bc9f-4b39-9a16-e2015b412627',
        subtenantLabel: 'Development',
      },
      forms: { catalogRequestInfoHidden: true, requestFormScale: 'BIG' },
    };
    const answer = await stack.gql<any>(registerMutation, { input });
    expect(answer.errors).toBeUndefined();
    const body = JSON.parse(registerPuts(stack.vra).at(-1)!.body.toString('utf8'));
    expect(body.organization).toEqual(input.organization);
    expect(body.forms).toEqual(input.forms);
    expect(answer.data?.registerCatalogItem.catalogItem.organization.subtenantLabel).toBe(
      'Development',
    );
  });

  it.each([201, 204] as const)(
    "reads the item back by its binding when vRA answers %i without a body, and answers vRA's own id",
    async (status) => {
      stack.vra.setRegisterStatus(status);
      const input = { ...registerInput(), name: "O'Brien's CentOS" };
      const answer = await stack.gql<any>(registerMutation, { input });
      stack.vra.setRegisterStatus(200);
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.registerCatalogItem.catalogItem).toEqual({
        ...expectedItem(input.bindingId),
        name: "O'Brien's CentOS",
      });
      const readBack = fresh().filter((r) => r.method === 'GET' && r.path === catalogItemsPath);
      expect(readBack).toHaveLength(1);
      expect(readBack[0]?.query.get('$filter')).toBe("name eq 'O''Brien''s CentOS'");
      expect(readBack[0]?.query.get('limit')).toBe('5000');
    },
  );

  it('makes the registered item show in catalogItems', async () => {
    const input = registerInput();
    await stack.gql<any>(registerMutation, { input });
    const answer = await stack.gql<any>(
      '{ catalogItems(first: 5000) { nodes { id name provider { name } } } }',
    );
    const found = answer.data?.catalogItems.nodes.filter(
      (n: { id: string }) => n.id === registeredId(input.bindingId),
    );
    expect(found).toEqual([
      {
        id: registeredId(input.bindingId),
        name: 'CentOS 9 Stream',
        provider: { name: 'iaas-service' },
      },
    ]);
  });

  it.each([
    ['input.providerId', { providerId: 'iaas-service' }],
    ['input.bindingId', { bindingId: '../../../identity/api/tokens' }],
    ['input.name', { name: '' }],
    ['input.iconId', { iconId: '   ' }],
    ['input.organization.tenantRef', { organization: { tenantRef: '', tenantLabel: 'x' } }],
    ['input.forms', { forms: ['not', 'an', 'object'] }],
  ])('refuses a bad %s with BAD_USER_INPUT before any call', async (argument, change) => {
    const answer = await stack.gql<any>(registerMutation, {
      input: { ...registerInput(), ...change },
    });
    const error = firstError(answer);
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    expect(error.message).toContain(argument);
    expect(fresh()).toHaveLength(0);
  });

  it('answers NOT_FOUND with the vRA error for an unknown provider', async () => {
    const input = { ...registerInput(), providerId: '00000000-0000-4000-8000-00000000beef' };
    const answer = await stack.gql<any>(registerMutation, { input });
    const error = firstError(answer);
    expect(error.extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { service: 'vra', status: 404, code: '20111' },
    });
    expect((error.extensions?.['upstream'] as { message: string }).message).toContain(
      input.providerId,
    );
    expect(answer.data).toBeNull();
    expectNoSecrets(answer, stack.vra);
  });

  it('turns a 400 invalid argument (10101) into BAD_USER_INPUT with extensions.upstream without the systemMessage', async () => {
    stack.vra.faults.inject({
      method: 'PUT',
      path: /\/catalogItems\//,
      fault: {
        kind: 'status',
        status: 400,
        body: vraErrorBody(
          10101,
          'Invalid argument.',
          'java.lang.IllegalArgumentException: at com.vmware.vcac.Catalog.register(Catalog.java:42)',
        ),
      },
      times: 1,
    });
    const answer = await stack.gql<any>(registerMutation, { input: registerInput() });
    const error = firstError(answer);
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: { service: 'vra', status: 400, code: '10101', message: 'Invalid argument.' },
    });
    expect(JSON.stringify(answer)).not.toContain('IllegalArgumentException');
    expectNoSecrets(answer, stack.vra);
  });
});

describe('publishBlueprint', () => {
  const blueprint = (virtualMachineTemplateId = nextId()) => ({
    virtualMachineTemplateId,
    ...common(),
  });

  it('registers with the configured iaas-service provider, id = bindingId = virtualMachineTemplateId, in one provider call', async () => {
    const input = blueprint();
    const answer = await stack.gql<any>(publishMutation, { input });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.publishBlueprint.catalogItem).toEqual(
      expectedItem(input.virtualMachineTemplateId),
    );
    const requests = fresh().filter((r) => r.path.startsWith('/catalog-service/'));
    expect(
      requests.map(
        (r) => `${r.method} ${r.rawPath}${r.query.size > 0 ? `?${r.query.toString()}` : ''}`,
      ),
    ).toEqual([
      `GET ${providersPath}?page=1&limit=5000`,
      `PUT /catalog-service/api/provider/providers/${iaasProvider(stack.vra).id}/catalogItems/${input.virtualMachineTemplateId}`,
    ]);
    expect(JSON.parse(requests[1]!.body.toString('utf8'))).toEqual(
      expectedBody(input.virtualMachineTemplateId),
    );
  });

  it('registers with the provider named in providerName', async () => {
    const input = { ...blueprint(), providerName: 'Blueprint Service' };
    const answer = await stack.gql<any>(publishMutation, { input });
    expect(answer.errors).toBeUndefined();
    const target = stack.vra.providers.find((p) => p.name === 'Blueprint Service')!;
    expect(answer.data?.publishBlueprint.catalogItem.provider.id).toBe(target.id);
    expect(registerPuts(stack.vra).at(-1)?.rawPath).toContain(`/providers/${target.id}/`);
  });

  it('refuses an unknown provider name with BAD_USER_INPUT that names it, and no PUT', async () => {
    const answer = await stack.gql<any>(publishMutation, {
      input: { ...blueprint(), providerName: 'iaas-servce' },
    });
    const error = firstError(answer);
    expect(error.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'input.providerName',
    });
    expect(error.message).toContain('"iaas-servce"');
    expect(fresh().filter((r) => r.method === 'PUT')).toHaveLength(0);
  });

  it('refuses a bad virtualMachineTemplateId before any call', async () => {
    const answer = await stack.gql<any>(publishMutation, { input: blueprint('no spaces allowed') });
    expect(firstError(answer).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'input.virtualMachineTemplateId',
    });
    expect(fresh()).toHaveLength(0);
  });

  it('looks the provider up once for two publications in one request', async () => {
    const [a, b] = [blueprint(), blueprint()];
    const answer = await stack.gql<any>(
      `mutation ($a: PublishBlueprintInput!, $b: PublishBlueprintInput!) {
        a: publishBlueprint(input: $a) { catalogItem { id provider { name } } }
        b: publishBlueprint(input: $b) { catalogItem { id provider { name } } }
      }`,
      { a, b },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.b.catalogItem).toEqual({
      id: registeredId(b.virtualMachineTemplateId),
      provider: { name: 'iaas-service' },
    });
    expect(fresh().filter((r) => r.path === providersPath)).toHaveLength(1);
    expect(fresh().filter((r) => r.method === 'PUT')).toHaveLength(2);
  });

  it('makes the published blueprint show in catalogItems', async () => {
    const input = blueprint();
    await stack.gql<any>(publishMutation, { input });
    const answer = await stack.gql<any>('{ catalogItems(first: 5000) { nodes { id } } }');
    expect(answer.data?.catalogItems.nodes.map((n: { id: string }) => n.id)).toContain(
      registeredId(input.virtualMachineTemplateId),
    );
    expect(fresh().filter((r) => r.path === catalogItemsPath)).toHaveLength(1);
  });
});

describe('publishBlueprint with VRA_IAAS_PROVIDER_NAME', () => {
  it('uses the configured provider name, and names it when vRA has no such provider', async () => {
    const local = await startStack({
      env: { VRA_IAAS_PROVIDER_NAME: "Ops Team's XaaS", PROVIDER_CACHE_TTL_MS: '0' },
    });
    try {
      const target = local.vra.providers.find((p) => p.name === "Ops Team's XaaS")!;
      const input = { virtualMachineTemplateId: nextId(), ...common() };
      const answer = await local.gql<any>(publishMutation, { input });
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.publishBlueprint.catalogItem.provider.name).toBe("Ops Team's XaaS");
      expect(registerPuts(local.vra).at(-1)?.rawPath).toContain(`/providers/${target.id}/`);

      local.vra.providers.splice(local.vra.providers.indexOf(target), 1);
      const missing = await local.gql<any>(publishMutation, { input });
      const error = firstError(missing);
      expect(error.extensions?.['code']).toBe('BAD_USER_INPUT');
      expect(error.message).toContain(`"Ops Team's XaaS"`);
      expect(error.message).toContain('VRA_IAAS_PROVIDER_NAME');
      expect(registerPuts(local.vra)).toHaveLength(1);
      expect(tokenRequests(local.vra)).toHaveLength(1);
    } finally {
      await local.close();
    }
  });
});
