import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startVraSimulator } from '../../simulators/vra/v7/index.ts';
import {
  databaseAdministratorsProject,
  developmentProject,
  failureTrigger,
  qualityProject,
  seededTemplates,
  startVra8Simulator,
  type Vra8Simulator,
} from '../../simulators/vra/v8/index.ts';

let sim: Vra8Simulator;

beforeEach(async () => {
  sim = await startVra8Simulator({ manualClock: true, requestStepMs: 1000 });
});
afterEach(async () => {
  await sim.close();
});

async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; contentType?: string } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.body !== undefined)
    headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(new URL(path, sim.url), {
    method,
    headers,
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function login(username = sim.username, password = sim.password): Promise<string> {
  const csp = await call('POST', '/csp/gateway/am/api/login?access_token', {
    body: { username, password },
  });
  expect(csp.status).toBe(200);
  const iaas = await call('POST', '/iaas/api/login', {
    body: { refreshToken: csp.body.refresh_token },
  });
  expect(iaas.status).toBe(200);
  expect(iaas.body.tokenType).toBe('Bearer');
  return String(iaas.body.token);
}

const centos = seededTemplates[0]!;
const postgres = seededTemplates[1]!;

describe('vRA 8 simulator: identity', () => {
  it('answers the about page without a token, naming the latest API version', async () => {
    const about = await call('GET', '/iaas/api/about');
    expect(about.status).toBe(200);
    expect(about.body.latestApiVersion).toBe('2021-07-15');
    expect(about.body.supportedApis.map((api: any) => String(api.apiVersion))).toContain(
      '2021-07-15',
    );
  });

  it('exchanges a CSP login for a refresh token, then a bearer token of that user', async () => {
    const token = await login('developer@vsphere.local', 'developer-simulator');
    expect(sim.bearerUser(token)).toBe('developer@vsphere.local');
  });

  it('takes a user name and a domain apart', async () => {
    const csp = await call('POST', '/csp/gateway/am/api/login?access_token', {
      body: { username: 'tester', password: 'tester-simulator', domain: 'vsphere.local' },
    });
    expect(csp.status).toBe(200);
  });

  it('refuses a wrong password with 401 and an unknown refresh token with 400', async () => {
    const csp = await call('POST', '/csp/gateway/am/api/login?access_token', {
      body: { username: 'dba@vsphere.local', password: 'wrong' },
    });
    expect(csp.status).toBe(401);
    expect(csp.body).toMatchObject({ statusCode: 401, message: expect.any(String) });
    const iaas = await call('POST', '/iaas/api/login', { body: { refreshToken: 'nope' } });
    expect(iaas.status).toBe(400);
  });

  it('refuses a call without a bearer, with an expired one, and with a revoked one', async () => {
    expect((await call('GET', '/iaas/api/projects')).status).toBe(401);
    const token = await login();
    expect((await call('GET', '/iaas/api/projects', { token })).status).toBe(200);
    sim.expireTokensOf(sim.username);
    expect((await call('GET', '/iaas/api/projects', { token })).status).toBe(401);
    const second = await login();
    sim.advance(30 * 60 * 1000);
    expect((await call('GET', '/iaas/api/projects', { token: second })).status).toBe(401);
    const third = await login();
    expect(
      (await call('POST', '/csp/gateway/am/api/auth/logout', { token: third, body: {} })).status,
    ).toBe(200);
    expect((await call('GET', '/iaas/api/projects', { token: third })).status).toBe(401);
  });

  it('lists only the projects the caller is a member of', async () => {
    const token = await login('dba@vsphere.local', 'dba-simulator');
    const projects = await call('GET', '/iaas/api/projects', { token });
    expect(projects.body.content.map((project: any) => String(project.name)).sort()).toEqual([
      'Database Administrators',
      'Development',
    ]);
    expect(projects.body.totalElements).toBe(2);
  });

  it('leaves the vRA 7 simulator without an about page (404), so that the generation can be told', async () => {
    const vra7 = await startVraSimulator();
    try {
      const response = await fetch(new URL('/iaas/api/about', vra7.url));
      expect(response.status).toBe(404);
    } finally {
      await vra7.close();
    }
  });
});

describe('vRA 8 simulator: strictness', () => {
  it('refuses a body that fails the specification with 400 naming the field', async () => {
    const token = await login();
    const order = await call('POST', `/catalog/api/items/${centos.id}/request`, {
      token,
      body: { deploymentName: 42, projectId: developmentProject.id, inputs: { hostname: 'a' } },
    });
    expect(order.status).toBe(400);
    expect(order.body.message).toContain('/deploymentName must be string');
    const version = await call('POST', `/blueprint/api/blueprints/${centos.id}/versions`, {
      token,
      body: {},
    });
    expect(version.status).toBe(400);
    expect(version.body.message).toContain('lacks required property "version"');
  });

  it('refuses a body that is not JSON', async () => {
    const token = await login();
    const wrongType = await call('POST', '/blueprint/api/blueprints', {
      token,
      body: 'name=x',
      contentType: 'text/plain',
    });
    expect(wrongType.status).toBe(415);
    const broken = await call('POST', '/blueprint/api/blueprints', { token, body: '{"name":' });
    expect(broken.status).toBe(400);
  });

  it('answers 404 for an unknown item, deployment, request or route', async () => {
    const token = await login();
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await call('GET', `/catalog/api/items/${unknown}`, { token })).status).toBe(404);
    expect((await call('GET', `/deployment/api/deployments/${unknown}`, { token })).status).toBe(
      404,
    );
    expect((await call('GET', `/deployment/api/requests/${unknown}`, { token })).status).toBe(404);
    expect(
      (await call('GET', '/catalog-service/api/consumer/entitledCatalogItemViews', { token }))
        .status,
    ).toBe(404);
  });

  it('refuses inputs outside the item schema: missing, wrong type, not in the enum, unknown', async () => {
    const token = await login();
    const order = (inputs: unknown) =>
      call('POST', `/catalog/api/items/${centos.id}/request`, {
        token,
        body: { deploymentName: 'strict', projectId: developmentProject.id, inputs },
      });
    expect((await order({})).body.message).toContain("Missing required input 'hostname'");
    expect((await order({ hostname: 'h', cpuCount: 'two' })).body.message).toContain(
      "Input 'cpuCount' must be integer",
    );
    expect((await order({ hostname: 'h', size: 'huge' })).body.message).toContain(
      "Input 'size' must be one of",
    );
    expect((await order({ hostname: 'h', colour: 'red' })).body.message).toContain(
      "Unknown input 'colour'",
    );
  });
});

describe('vRA 8 simulator: the catalog per user', () => {
  it("shows each user only the items shared with the user's projects", async () => {
    const names = async (user: string, password: string): Promise<string[]> => {
      const items = await call('GET', '/catalog/api/items', { token: await login(user, password) });
      return (items.body.content as any[]).map((item: any) => String(item.name)).sort();
    };
    expect(await names('developer@vsphere.local', 'developer-simulator')).toEqual([
      'CentOS 8 Machine',
    ]);
    expect(await names('tester@vsphere.local', 'tester-simulator')).toEqual([
      'CentOS 8 Machine',
      'Windows Server 2019',
    ]);
    expect(await names('dba@vsphere.local', 'dba-simulator')).toEqual([
      'CentOS 8 Machine',
      'PostgreSQL Database',
    ]);
  });

  it('pages with $top and $skip, searches and filters by project', async () => {
    const token = await login();
    const page = await call('GET', '/catalog/api/items?$top=2&$skip=2', { token });
    expect(page.body).toMatchObject({
      totalElements: 3,
      totalPages: 2,
      number: 1,
      numberOfElements: 1,
      last: true,
    });
    const search = await call('GET', '/catalog/api/items?search=postgres', { token });
    expect(search.body.content.map((item: any) => String(item.id))).toEqual([postgres.id]);
    const byProject = await call('GET', `/catalog/api/items?projects=${qualityProject.id}`, {
      token,
    });
    expect(byProject.body.totalElements).toBe(2);
  });

  it('answers an item with its input schema, and 403 for an item not shared with the caller', async () => {
    const token = await login('developer@vsphere.local', 'developer-simulator');
    const item = await call('GET', `/catalog/api/items/${centos.id}`, { token });
    expect(item.body.schema.required).toEqual(['hostname']);
    expect(item.body.schema.properties.size.enum).toEqual(['small', 'medium', 'large']);
    expect((await call('GET', `/catalog/api/items/${postgres.id}`, { token })).status).toBe(403);
    const order = await call('POST', `/catalog/api/items/${centos.id}/request`, {
      token,
      body: {
        deploymentName: 'x',
        projectId: databaseAdministratorsProject.id,
        inputs: { hostname: 'x' },
      },
    });
    expect(order.status).toBe(403);
  });
});

describe('vRA 8 simulator: orders and day-2 actions', () => {
  async function order(token: string, name: string, hostname: string): Promise<string> {
    const ordered = await call('POST', `/catalog/api/items/${centos.id}/request`, {
      token,
      body: {
        deploymentName: name,
        projectId: developmentProject.id,
        inputs: { hostname },
        reason: 'test',
      },
    });
    expect(ordered.status).toBe(200);
    return String(ordered.body[0].deploymentId);
  }

  it('follows an order through CREATED and INPROGRESS to SUCCESSFUL, then shows its resources', async () => {
    const token = await login('developer@vsphere.local', 'developer-simulator');
    const deploymentId = await order(token, 'web-1', 'web');
    const requests = await call('GET', `/deployment/api/deployments/${deploymentId}/requests`, {
      token,
    });
    const requestId = requests.body.content[0].id;
    const status = async () =>
      (await call('GET', `/deployment/api/requests/${requestId}`, { token })).body.status as string;
    expect(await status()).toBe('CREATED');
    sim.advance(1000);
    expect(await status()).toBe('INPROGRESS');
    sim.advance(1000);
    expect(await status()).toBe('SUCCESSFUL');
    const deployment = await call(
      'GET',
      `/deployment/api/deployments/${deploymentId}?expand=resources&expand=lastRequest`,
      { token },
    );
    expect(deployment.body.status).toBe('CREATE_SUCCESSFUL');
    expect(deployment.body.inputs).toEqual({ hostname: 'web', size: 'small', cpuCount: 1 });
    expect(deployment.body.resources).toHaveLength(1);
    const resources = await call('GET', `/deployment/api/deployments/${deploymentId}/resources`, {
      token,
    });
    expect(resources.body.content[0].properties.powerState).toBe('ON');
  });

  it('ends an order FAILED when an input holds the failure trigger, or after failNextRequests', async () => {
    const token = await login();
    const first = await order(token, 'doomed-1', failureTrigger);
    sim.failNextRequests(1);
    const second = await order(token, 'doomed-2', 'fine');
    sim.advance(2000);
    for (const id of [first, second]) {
      const deployment = await call('GET', `/deployment/api/deployments/${id}?expand=lastRequest`, {
        token,
      });
      expect(deployment.body.status).toBe('CREATE_FAILED');
      expect(deployment.body.lastRequest.status).toBe('FAILED');
      expect(deployment.body.lastRequest.details).toEqual(expect.any(String));
    }
  });

  it('runs a day-2 action on a resource: listed valid, requested, and applied when it ends', async () => {
    const token = await login();
    const deploymentId = await order(token, 'app-1', 'app');
    sim.advance(2000);
    const resources = await call('GET', `/deployment/api/deployments/${deploymentId}/resources`, {
      token,
    });
    const resourceId = resources.body.content[0].id;
    const actionsPath = `/deployment/api/deployments/${deploymentId}/resources/${resourceId}/actions`;
    const actions = await call('GET', actionsPath, { token });
    const powerOff = actions.body.find((action: any) => action.name === 'PowerOff');
    expect(powerOff).toMatchObject({ id: 'Cloud.vSphere.Machine.PowerOff', valid: true });
    const requestsPath = `/deployment/api/deployments/${deploymentId}/resources/${resourceId}/requests`;
    const run = await call('POST', requestsPath, {
      token,
      body: { actionId: powerOff.id, inputs: {} },
    });
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('CREATED');
    expect(
      (await call('POST', requestsPath, { token, body: { actionId: powerOff.id } })).status,
    ).toBe(409);
    sim.advance(2000);
    expect(
      (await call('GET', `/deployment/api/requests/${run.body.id}`, { token })).body.status,
    ).toBe('SUCCESSFUL');
    const after = await call('GET', actionsPath, { token });
    expect(after.body.find((action: any) => action.name === 'PowerOn').valid).toBe(true);
    const resize = await call('POST', requestsPath, {
      token,
      body: { actionId: 'Cloud.vSphere.Machine.Resize', inputs: {} },
    });
    expect(resize.status).toBe(400);
    expect((await call('POST', requestsPath, { token, body: { actionId: 'Nope' } })).status).toBe(
      404,
    );
  });
});

describe('vRA 8 simulator: publishing a cloud template', () => {
  it('makes a released version a catalog item once its project source is imported and shared', async () => {
    const token = await login();
    const content = `formatVersion: 1
inputs:
  name:
    type: string
    title: Name
  tier:
    type: string
    enum: [gold, silver]
    default: silver
resources:
  Cloud_Machine_1:
    type: Cloud.Machine
`;
    const created = await call('POST', '/blueprint/api/blueprints', {
      token,
      body: { name: 'Web Tier', description: 'A web tier', projectId: qualityProject.id, content },
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('DRAFT');
    const id = created.body.id;
    const version = await call('POST', `/blueprint/api/blueprints/${id}/versions`, {
      token,
      body: { version: '1.0', changeLog: 'first' },
    });
    expect(version.body.status).toBe('VERSIONED');
    const tester = await login('tester@vsphere.local', 'tester-simulator');
    const visible = async (): Promise<string[]> =>
      ((await call('GET', '/catalog/api/items', { token: tester })).body.content as any[]).map(
        (item: any) => String(item.name),
      );
    expect(await visible()).not.toContain('Web Tier');

    const released = await call(
      'POST',
      `/blueprint/api/blueprints/${id}/versions/1.0/actions/release`,
      { token },
    );
    expect(released.body.status).toBe('RELEASED');
    expect(await visible()).not.toContain('Web Tier');

    const source = await call('POST', '/catalog/api/admin/sources', {
      token,
      body: {
        name: 'Quality templates',
        typeId: 'com.vmw.blueprint',
        config: { sourceProjectId: qualityProject.id },
      },
    });
    expect(source.status).toBe(201);
    expect(source.body.itemsImported).toBe(2);
    const shared = await call('POST', '/catalog/api/admin/entitlements', {
      token,
      body: {
        projectId: qualityProject.id,
        definition: { type: 'CatalogSourceIdentifier', id: source.body.id },
      },
    });
    expect(shared.status).toBe(201);
    expect(await visible()).toContain('Web Tier');
    const item = await call('GET', `/catalog/api/items/${id}`, { token: tester });
    expect(item.body.schema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name' },
        tier: { type: 'string', enum: ['gold', 'silver'], default: 'silver' },
      },
      required: ['name'],
    });

    await call('POST', `/blueprint/api/blueprints/${id}/versions/1.0/actions/unrelease`, { token });
    const reimport = await call('POST', '/catalog/api/admin/sources', {
      token,
      body: {
        id: source.body.id,
        name: 'Quality templates',
        typeId: 'com.vmw.blueprint',
        config: { sourceProjectId: qualityProject.id },
      },
    });
    expect(reimport.status).toBe(200);
    expect(await visible()).not.toContain('Web Tier');
  });

  it('keeps catalog administration to the service account', async () => {
    const token = await login('tester@vsphere.local', 'tester-simulator');
    expect((await call('GET', '/catalog/api/admin/sources', { token })).status).toBe(403);
  });
});
