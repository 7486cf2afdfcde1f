import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVraSimulator, type VraSimulator } from '../../simulators/vra/v7/index.ts';

let sim: VraSimulator;
let token: string;

const json = { accept: 'application/json', 'content-type': 'application/json' };

async function login(body: Record<string, string>) {
  return fetch(new URL('/identity/api/tokens', sim.url), {
    method: 'POST',
    headers: json,
    body: JSON.stringify(body),
  });
}

async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(new URL(path, sim.url), {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      ...json,
      ...(init.headers as Record<string, string>),
    },
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

const item = (id: string) => ({
  id,
  name: 'Sim item',
  description: 'registered by a test',
  iconId: 'icon',
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

beforeAll(async () => {
  sim = await startVraSimulator();
  const answer = await login({
    username: sim.username,
    password: sim.password,
    tenant: sim.tenant,
  });
  token = ((await answer.json()) as { id: string }).id;
});
afterAll(async () => {
  await sim.close();
});

describe('the vRA simulator identity service', () => {
  it('issues a token with an ISO expiry about 24 h ahead', async () => {
    const answer = await login({
      username: sim.username,
      password: sim.password,
      tenant: sim.tenant,
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { id: string; expires: string; tenant: string };
    expect(body.tenant).toBe(sim.tenant);
    const lifetime = Date.parse(body.expires) - Date.now();
    expect(lifetime).toBeGreaterThan(23 * 3600_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3600_000);
  });

  it.each([
    ['password', { password: 'nope' }],
    ['tenant', { tenant: 'q' }],
  ])('refuses a wrong %s with 401 and error 90135', async (_what, change) => {
    const answer = await login({
      username: sim.username,
      password: sim.password,
      tenant: sim.tenant,
      ...change,
    });
    expect(answer.status).toBe(401);
    const body = (await answer.json()) as { errors: Array<Record<string, unknown>> };
    expect(body.errors[0]).toMatchObject({ code: 90135, source: null, moreInfoUrl: null });
    expect(String(body.errors[0]?.['systemMessage'])).toMatch(/^90135-Unable to authenticate user/);
  });

  it('refuses a token request without Accept: application/json with 406', async () => {
    const answer = await fetch(new URL('/identity/api/tokens', sim.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html' },
      body: JSON.stringify({ username: sim.username, password: sim.password, tenant: sim.tenant }),
    });
    expect(answer.status).toBe(406);
  });
});

describe('the vRA simulator catalog service', () => {
  it.each([
    ['no Authorization', {}],
    ['an unknown bearer', { authorization: 'Bearer not-a-token' }],
    ['Basic credentials', { authorization: 'Basic Z2F0ZXdheTpzaW11bGF0b3I=' }],
  ])('answers 401 with a vRA error body to %s', async (_what, headers) => {
    const answer = await fetch(new URL('/catalog-service/api/providers', sim.url), {
      headers: { accept: 'application/json', ...headers },
    });
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { errors: unknown[] }).errors).toHaveLength(1);
  });

  it('answers 401 to an expired token', async () => {
    const local = await startVraSimulator();
    try {
      const answer = await fetch(new URL('/identity/api/tokens', local.url), {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          username: local.username,
          password: local.password,
          tenant: local.tenant,
        }),
      });
      const id = ((await answer.json()) as { id: string }).id;
      const get = () =>
        fetch(new URL('/catalog-service/api/providers', local.url), {
          headers: { accept: 'application/json', authorization: `Bearer ${id}` },
        });
      expect((await get()).status).toBe(200);
      local.expireAllTokens();
      expect((await get()).status).toBe(401);
    } finally {
      await local.close();
    }
  });

  it('refuses a catalog call without Accept with 406', async () => {
    const answer = await fetch(new URL('/catalog-service/api/providers', sim.url), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(406);
  });

  it('pages providers with 1-based page and limit 20 by default', async () => {
    const all = await call('/catalog-service/api/providers');
    expect(all.status).toBe(200);
    expect(all.body.metadata).toEqual({
      size: 20,
      totalElements: 6,
      totalPages: 1,
      number: 1,
      offset: 0,
    });
    const page = await call('/catalog-service/api/providers?page=2&limit=2');
    expect(page.body.metadata).toEqual({
      size: 2,
      totalElements: 6,
      totalPages: 3,
      number: 2,
      offset: 2,
    });
    expect(page.body.content.map((p: { id: string }) => p.id)).toEqual(
      all.body.content.slice(2, 4).map((p: { id: string }) => p.id),
    );
    const iaas = all.body.content.find((p: { name: string }) => p.name === 'iaas-service');
    expect(iaas).toMatchObject({
      '@type': 'Provider',
      providerTypeId: 'com.vmware.csp.iaas.blueprint.service',
    });
  });

  it.each(['limit=5001', 'limit=0', 'page=0', 'page=x', 'limit=-1'])(
    'refuses %s with 400 and error 10101',
    async (query) => {
      const answer = await call(`/catalog-service/api/providers?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0].code).toBe(10101);
    },
  );

  it('accepts limit=5000', async () => {
    expect((await call('/catalog-service/api/providers?limit=5000')).status).toBe(200);
  });

  it('filters providers with OData name eq', async () => {
    const answer = await call(
      `/catalog-service/api/providers?$filter=${encodeURIComponent("name eq 'Ops Team''s XaaS'")}`,
    );
    expect(answer.body.content.map((p: { name: string }) => p.name)).toEqual(["Ops Team's XaaS"]);
    expect(answer.body.metadata.totalElements).toBe(1);
    const bad = await call(
      `/catalog-service/api/providers?$filter=${encodeURIComponent('name gt 1')}`,
    );
    expect(bad.status).toBe(400);
  });

  it('answers a provider by id, and 404 with a vRA error body for an unknown one', async () => {
    const found = await call(`/catalog-service/api/providers/${sim.providers[0]!.id}`);
    expect(found.body).toEqual(sim.providers[0]);
    const missing = await call(
      '/catalog-service/api/providers/00000000-0000-4000-8000-000000000000',
    );
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0]).toMatchObject({ code: 20111, source: null });
  });

  it('lists 30+ catalog items over 3+ providers, shaped like vRA', async () => {
    const answer = await call('/catalog-service/api/catalogItems?limit=100');
    expect(answer.body.metadata.totalElements).toBeGreaterThanOrEqual(30);
    const providers = new Set(
      answer.body.content.map(
        (i: { providerBinding: { providerRef: { id: string } } }) =>
          i.providerBinding.providerRef.id,
      ),
    );
    expect(providers.size).toBeGreaterThanOrEqual(3);
    expect(answer.body.content[0]).toMatchObject({
      '@type': 'CatalogItem',
      providerBinding: {
        bindingId: expect.any(String),
        providerRef: { id: expect.any(String), label: expect.any(String) },
      },
      catalogItemTypeRef: { id: expect.any(String), label: expect.any(String) },
      outputResourceTypeRef: { id: expect.any(String) },
      organization: { tenantRef: sim.tenant },
      iconId: expect.any(String),
      status: 'PUBLISHED',
    });
  });

  describe('register PUT', () => {
    const iaas = () => sim.providers.find((p) => p.name === 'iaas-service')!.id;
    const put = (
      providerId: string,
      bindingId: string,
      body: unknown,
      headers: Record<string, string> = {},
    ) =>
      call(`/catalog-service/api/provider/providers/${providerId}/catalogItems/${bindingId}`, {
        method: 'PUT',
        body: JSON.stringify(body),
        headers,
      });

    it('registers an item that then shows in the catalog items list, and updates it on a second PUT', async () => {
      const id = 'aa000000-0000-4000-8000-000000000001';
      const created = await put(iaas(), id, item(id));
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({
        providerBinding: { bindingId: id, providerRef: { id: iaas(), label: 'iaas-service' } },
      });
      // vRA gives the item an id of its own, not the bindingId.
      const itemId = created.body.id as string;
      expect(itemId).toMatch(/^[0-9a-f-]{36}$/);
      expect(itemId).not.toBe(id);
      const again = await put(iaas(), id, { ...item(id), name: 'Renamed' });
      expect(again.body.id).toBe(itemId);
      const listed = (
        await call('/catalog-service/api/catalogItems?limit=5000')
      ).body.content.filter((i: any) => i.providerBinding.bindingId === id);
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ id: itemId, name: 'Renamed', version: 2 });
    });

    it.each([
      [
        'a missing forms',
        (b: any) => {
          delete b.forms;
        },
      ],
      [
        'a missing description',
        (b: any) => {
          delete b.description;
        },
      ],
      [
        'a missing subtenantRef',
        (b: any) => {
          delete b.organization.subtenantRef;
        },
      ],
      [
        'an empty name',
        (b: any) => {
          b.name = '';
        },
      ],
      [
        'an array as forms',
        (b: any) => {
          b.forms = [];
        },
      ],
      [
        'an unknown field',
        (b: any) => {
          b.published = true;
        },
      ],
      [
        'an id different from the bindingId',
        (b: any) => {
          b.id = 'aa000000-0000-4000-8000-000000000009';
        },
      ],
    ])('refuses %s with 400 and error 10101', async (_what, change) => {
      const id = 'aa000000-0000-4000-8000-000000000002';
      const body = item(id);
      change(body);
      const answer = await put(iaas(), id, body);
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0]).toMatchObject({ code: 10101, message: 'Invalid argument.' });
      expect(sim.catalogItems.some((i) => i.id === id)).toBe(false);
    });

    it('refuses a body that is not JSON, or not sent as JSON', async () => {
      const id = 'aa000000-0000-4000-8000-000000000003';
      const path = `/catalog-service/api/provider/providers/${iaas()}/catalogItems/${id}`;
      expect((await call(path, { method: 'PUT', body: '{"id":' })).status).toBe(400);
      expect(
        (
          await call(path, {
            method: 'PUT',
            body: JSON.stringify(item(id)),
            headers: { 'content-type': 'text/plain' },
          })
        ).status,
      ).toBe(415);
    });

    it('answers 404 for an unknown provider', async () => {
      const id = 'aa000000-0000-4000-8000-000000000004';
      const answer = await put('00000000-0000-4000-8000-000000000000', id, item(id));
      expect(answer.status).toBe(404);
      expect(answer.body.errors[0].code).toBe(20111);
    });

    it('answers 201 with a Location, or 204, when switched', async () => {
      const id = 'aa000000-0000-4000-8000-000000000005';
      sim.setRegisterStatus(201);
      const created = await put(iaas(), id, item(id));
      expect(created.status).toBe(201);
      expect(created.body).toBeUndefined();
      const stored = sim.catalogItems.find((i) => i.providerBinding.bindingId === id);
      expect(created.headers.get('location')).toMatch(
        new RegExp(`/catalog-service/api/catalogItems/${stored?.id ?? 'none'}$`),
      );
      sim.setRegisterStatus(204);
      const updated = await put(iaas(), id, item(id));
      expect(updated.status).toBe(204);
      sim.setRegisterStatus(200);
    });
  });

  describe('for tests', () => {
    it('records every request for tests', async () => {
      const before = sim.requestsTo('GET', '/catalog-service/api/catalogItems').length;
      await call('/catalog-service/api/catalogItems?page=2&limit=5');
      const seen = sim.requestsTo('GET', '/catalog-service/api/catalogItems');
      expect(seen).toHaveLength(before + 1);
      expect(seen.at(-1)?.query.get('limit')).toBe('5');
      expect(seen.at(-1)?.headers.authorization).toBe(`Bearer ${token}`);
    });
  });
});
