import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  seededRequest,
  startVraSimulator,
  type VraSimulator,
} from '../../simulators/vra/v7/index.ts';
import { vraLogin } from '../helpers/vra.ts';

const consumer = '/catalog-service/api/consumer';
const centos = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01';
const restricted = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c04';
const reboot = 'a66d10d0-52af-4799-a953-5c17bca5438a';
const jane = { username: 'jane@vsphere.local', password: 'jane-secret' };
const json = { accept: 'application/json', 'content-type': 'application/json' };

let sim: VraSimulator;
let token: string;
let janeToken: string;

async function call(path: string, init: RequestInit = {}, bearer: string | null = token) {
  const response = await fetch(new URL(path, sim.url), {
    ...init,
    headers: {
      ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
      ...json,
      ...(init.headers as Record<string, string>),
    },
  });
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' || !isJson ? undefined : JSON.parse(text),
  };
}

beforeAll(async () => {
  sim = await startVraSimulator({ users: [jane] });
  token = await vraLogin(sim);
  janeToken = await vraLogin(sim, jane);
});
afterAll(async () => {
  await sim.close();
});

describe('the vRA simulator consumer API', () => {
  it('requires the bearer token and JSON, like the other catalog routes', async () => {
    const path = `${consumer}/entitledCatalogItemViews`;
    expect((await call(path, {}, null)).status).toBe(401);
    expect((await call(path, {}, 'not-a-token')).status).toBe(401);
    expect((await call(path, { headers: { accept: 'text/html' } })).status).toBe(406);
    expect((await call(path, { method: 'DELETE' })).status).toBe(405);
    expect((await call(`${path}?page=0`)).status).toBe(400);
  });

  it('answers a template of an item the caller is not entitled to with 403 and a vRA error body', async () => {
    const template = `${consumer}/entitledCatalogItems/${restricted}/requests/template`;
    expect((await call(template)).status).toBe(200);
    const refused = await call(template, {}, janeToken);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 20117, source: null, moreInfoUrl: null });
    const unknown = await call(
      `${consumer}/entitledCatalogItems/00000000-0000-4000-8000-000000000000/requests/template`,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe(20116);
  });

  it("refuses a submitted body that is not JSON, or not the template's shape, with 415/400 and code 10101", async () => {
    const path = `${consumer}/entitledCatalogItems/${centos}/requests`;
    const template = (await call(`${path}/template`)).body;
    const before = sim.consumer.requests(sim.username).length;
    const cases: Array<[RequestInit, number]> = [
      [{ method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }, 415],
      [{ method: 'POST', body: '{' }, 400],
      [{ method: 'POST', body: JSON.stringify({ ...template, type: undefined }) }, 400],
      [{ method: 'POST', body: JSON.stringify({ ...template, catalogItemId: undefined }) }, 400],
      [{ method: 'POST', body: JSON.stringify({ ...template, businessGroupId: 'other' }) }, 400],
      [{ method: 'POST', body: JSON.stringify({ ...template, data: { web: {} } }) }, 400],
    ];
    for (const [init, status] of cases) {
      const answer = await call(path, init);
      expect(answer.status, init.body as string).toBe(status);
      expect(answer.body.errors[0].code).toBe(10101);
    }
    expect(sim.consumer.requests(sim.username)).toHaveLength(before);
    const created = await call(path, { method: 'POST', body: JSON.stringify(template) });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toMatch(
      new RegExp(`${consumer}/requests/${created.body.id}$`),
    );
    expect(created.body).toMatchObject({ '@type': 'CatalogItemRequest', state: 'SUBMITTED' });
  });

  it('answers a resource action with 201, no body and a Location', async () => {
    const base = `${consumer}/resources/${seededRequest.machineId}/actions/${reboot}/requests`;
    const template = (await call(`${base}/template`)).body;
    expect(template).toEqual({
      type: 'com.vmware.vcac.catalog.domain.request.CatalogResourceRequest',
      resourceId: seededRequest.machineId,
      actionId: reboot,
      description: null,
      reasons: null,
      data: {},
    });
    const created = await call(base, { method: 'POST', body: JSON.stringify(template) });
    expect(created.status).toBe(201);
    expect(created.body).toBeUndefined();
    const id = created.headers.get('location')?.split('/').at(-1);
    const request = await call(`${consumer}/requests/${id}`);
    expect(request.body).toMatchObject({
      '@type': 'ResourceActionRequest',
      resourceRef: { id: seededRequest.machineId },
      resourceActionRef: { id: reboot, label: 'Reboot' },
    });
  });

  it('shows each user only their own requests and resources', async () => {
    expect((await call(`${consumer}/requests/${seededRequest.requestId}`)).status).toBe(200);
    const other = await call(`${consumer}/requests/${seededRequest.requestId}`, {}, janeToken);
    expect(other.status).toBe(404);
    expect(other.body.errors[0].code).toBe(20111);
    expect(
      (await call(`${consumer}/resources/${seededRequest.machineId}`, {}, janeToken)).status,
    ).toBe(404);
    const list = await call(`${consumer}/requests?page=1&limit=10`, {}, janeToken);
    expect(list.body.metadata.totalElements).toBe(0);
  });
});
