/**
 * The vRA 8 client and the generation dispatch through the gateway, against
 * a small loopback fake of vRA 8 that records what it receives. The fake
 * answers the shapes of vmware/vra-sdk-go's swagger/vra-iaas.json and
 * vra-catalog-deployment.json; the strict simulator (simulators/vra/v8)
 * is what the integration tests use.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { GatewayConfig } from '../../src/gateway-config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createGateway, type Gateway } from '../../src/server.ts';

interface Received {
  method: string;
  path: string;
  query: string;
  authorization: string | undefined;
  body: unknown;
}

type Answer = { status: number; body?: unknown };
type Route = (request: Received) => Answer | undefined;

interface Fake {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

async function startFake(route: Route): Promise<Fake> {
  const received: Received[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      const entry: Received = {
        method: request.method ?? '',
        path: url.pathname,
        query: url.search,
        authorization: request.headers.authorization,
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
      };
      received.push(entry);
      const answer = route(entry) ?? { status: 404, body: { message: 'Not found' } };
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const about = {
  latestApiVersion: '2021-07-15',
  supportedApis: [{ apiVersion: '2021-07-15', documentationLink: '/iaas/api/swagger' }],
};

const projectId = 'a1b2c3d4-0000-4000-8000-000000000001';
const itemId = '11111111-2222-4333-8444-555555555555';
const item = {
  id: itemId,
  name: 'CentOS',
  description: 'A small machine',
  projectIds: [projectId],
  projects: [{ id: projectId, name: 'Development' }],
  type: { id: 'com.vmw.blueprint', name: 'VMware Cloud Templates' },
  schema: {
    type: 'object',
    properties: { cpu: { type: 'integer', default: 1 }, image: { type: 'string' } },
  },
};

/** A JWT-like bearer whose `exp` is an hour away. */
function bearer(n: number): string {
  const payload = Buffer.from(
    JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 3600, n }),
  ).toString('base64url');
  return `e30.${payload}.sig`;
}

/** A vRA 8 that answers the routes of the tests. */
function vra8(overrides: Route = () => undefined): Route {
  let logins = 0;
  let reads = 0;
  return (request) => {
    const overridden = overrides(request);
    if (overridden !== undefined) return overridden;
    const key = `${request.method} ${request.path}`;
    switch (key) {
      case 'GET /iaas/api/about':
        return { status: 200, body: about };
      case 'POST /csp/gateway/am/api/login': {
        const body = request.body as { password?: string };
        if (body.password !== 'secret-pass-8') {
          return {
            status: 401,
            body: { message: 'Invalid username or password', statusCode: 401 },
          };
        }
        logins += 1;
        return { status: 200, body: { refresh_token: `refresh-${logins}` } };
      }
      case 'POST /iaas/api/login': {
        const { refreshToken } = request.body as { refreshToken: string };
        return {
          status: 200,
          body: { tokenType: 'Bearer', token: bearer(Number(refreshToken.split('-')[1])) },
        };
      }
      case 'GET /iaas/api/projects':
        return {
          status: 200,
          body: { content: [{ id: projectId, name: 'Development', _links: {} }], totalElements: 1 },
        };
      case 'GET /catalog/api/items':
        return {
          status: 200,
          body: { content: [item], totalElements: 1, totalPages: 1, number: 0, size: 50 },
        };
      case `GET /catalog/api/items/${itemId}`:
        return { status: 200, body: item };
      case `POST /catalog/api/items/${itemId}/request`:
        return { status: 200, body: [{ deploymentId: 'dep-1', deploymentName: 'web' }] };
      case 'GET /deployment/api/deployments/dep-1/requests':
        return {
          status: 200,
          body: {
            content: [
              {
                id: 'req-1',
                name: 'Create',
                status: 'INPROGRESS',
                requestedBy: 'svc',
                createdAt: '2024-01-01T00:00:00Z',
                deploymentId: 'dep-1',
                catalogItemId: `${itemId}:1`,
                completedTasks: 0,
                totalTasks: 2,
              },
            ],
            totalElements: 1,
          },
        };
      case 'GET /deployment/api/requests/req-1':
        reads += 1;
        return {
          status: 200,
          body: {
            id: 'req-1',
            name: 'Create',
            status: reads > 1 ? 'SUCCESSFUL' : 'INPROGRESS',
            requestedBy: 'svc',
            createdAt: '2024-01-01T00:00:00Z',
            deploymentId: 'dep-1',
            catalogItemId: `${itemId}:1`,
            completedTasks: reads > 1 ? 2 : 0,
            totalTasks: 2,
          },
        };
      default:
        return undefined;
    }
  };
}

let fake: Fake | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await fake?.close();
  gateway = undefined;
  fake = undefined;
});

async function start(route: Route, env: Record<string, string> = {}) {
  fake = await startFake(route);
  const config = loadConfig({
    VRA_URL: fake.url,
    VRA_USERNAME: 'svc',
    VRA_PASSWORD: 'secret-pass-8',
    VRA_TENANT: 'corp.local',
    UPSTREAM_RETRIES: '0',
    VRO_URL: 'http://127.0.0.1:9/vco/api',
    NSX_URL: 'http://127.0.0.1:9',
    ...env,
  });
  gateway = createGateway(config as GatewayConfig, { logger: createLogger('silent') });
  const started = gateway;
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const response = await started.yoga.fetch(
      new Request('http://gateway.test/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-graphql-csrf': '1',
        },
        body: JSON.stringify({ query, variables }),
      }),
    );
    return (await response.json()) as {
      data?: any;
      errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
    };
  };
  return { fake, gql };
}

const entitled = `{ entitledCatalogItems(first: 50) { totalCount nodes { id name catalogItemTypeId
  outputResourceTypeId businessGroups { id name } requestTemplate } } }`;

describe('the vRA 8 client behind the catalog types', () => {
  it('asks GET /iaas/api/about once, without a credential, and then speaks vRA 8', async () => {
    const { fake, gql } = await start(vra8());
    const first = await gql(entitled);
    const second = await gql(entitled);
    expect(first.errors).toBeUndefined();
    expect(second.errors).toBeUndefined();
    const abouts = fake.received.filter((r) => r.path === '/iaas/api/about');
    expect(abouts).toHaveLength(1);
    expect(abouts[0]?.authorization).toBeUndefined();
    expect(fake.received.some((r) => r.path.startsWith('/catalog-service'))).toBe(false);
  });

  it('logs in with CSP (VRA_TENANT as the domain) then /iaas/api/login, and sends that bearer', async () => {
    const { fake, gql } = await start(vra8(), { VRA_API_GENERATION: '8' });
    expect((await gql(entitled)).errors).toBeUndefined();
    const paths = fake.received.map((r) => `${r.method} ${r.path}${r.query}`);
    expect(paths.slice(0, 2)).toEqual([
      'POST /csp/gateway/am/api/login?access_token',
      'POST /iaas/api/login',
    ]);
    // The caller's projects are read once per operation, beside the items.
    expect(paths.slice(2).sort()).toEqual(
      [
        'GET /catalog/api/items?%24skip=0&%24top=50&expandProjects=true',
        `GET /catalog/api/items/${itemId}?expandProjects=true`,
        'GET /iaas/api/projects?%24skip=0&%24top=200',
      ].sort(),
    );
    expect(fake.received[0]?.body).toEqual({
      username: 'svc',
      password: 'secret-pass-8',
      domain: 'corp.local',
    });
    expect(fake.received[1]?.body).toEqual({ refreshToken: 'refresh-1' });
    expect(fake.received[2]?.authorization?.startsWith('Bearer e30.')).toBe(true);
    expect(new Set(fake.received.slice(2).map((r) => r.authorization)).size).toBe(1);
  });

  it('maps projects to business groups and the item schema to its request template', async () => {
    const { gql } = await start(vra8(), { VRA_API_GENERATION: '8' });
    const answer = await gql(entitled);
    expect(answer.data.entitledCatalogItems).toEqual({
      totalCount: 1,
      nodes: [
        {
          id: itemId,
          name: 'CentOS',
          catalogItemTypeId: 'com.vmw.blueprint',
          outputResourceTypeId: null,
          businessGroups: [{ id: projectId, name: 'Development' }],
          requestTemplate: expect.objectContaining({
            businessGroupId: projectId,
            data: { cpu: 1 },
            schema: item.schema,
          }),
        },
      ],
    });
  });

  it('orders an item with deploymentName, projectId, inputs and reason, answering the deployment request', async () => {
    const { fake, gql } = await start(vra8(), { VRA_API_GENERATION: '8' });
    const answer = await gql(
      `mutation($input: RequestCatalogItemInput!) { requestCatalogItem(input: $input) {
        request { id state phase final catalogItemId requestedFor } } }`,
      {
        input: {
          catalogItemId: itemId,
          description: 'web-01',
          reasons: 'testing',
          data: { image: 'centos' },
        },
      },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.requestCatalogItem.request).toEqual({
      id: 'req-1',
      state: 'IN_PROGRESS',
      phase: 'INPROGRESS',
      final: false,
      catalogItemId: itemId,
      requestedFor: 'svc',
    });
    const order = fake.received.find((r) => r.path === `/catalog/api/items/${itemId}/request`);
    expect(order?.body).toEqual({
      deploymentName: 'web-01',
      projectId,
      inputs: { cpu: 1, image: 'centos' },
      reason: 'testing',
    });
  });

  it('answers registerCatalogItem with NOT_SUPPORTED naming vRA 8, without any call', async () => {
    const { fake, gql } = await start(vra8(), { VRA_API_GENERATION: '8' });
    const answer = await gql(
      `mutation($input: RegisterCatalogItemInput!) { registerCatalogItem(input: $input) { catalogItem { id } } }`,
      {
        input: {
          providerId: '6c1f4cc9-4806-4337-899e-50da870b3ed9',
          bindingId: 'binding-1',
          name: 'x',
          description: 'x',
          iconId: 'x',
          catalogItemTypeId: 'x',
          outputResourceTypeId: 'x',
          organization: { tenantRef: 't', tenantLabel: 't' },
        },
      },
    );
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_SUPPORTED',
      generation: 'vRA 8',
    });
    expect(fake.received).toHaveLength(0);
  });

  it('answers null for providers and a provider, with no call', async () => {
    const { fake, gql } = await start(vra8(), { VRA_API_GENERATION: '8' });
    const answer = await gql(
      `{ providers { totalCount } providerByName(name: "iaas-service") { id }
         provider(id: "6c1f4cc9-4806-4337-899e-50da870b3ed9") { id } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      providers: null,
      providerByName: null,
      provider: null,
    });
    expect(fake.received).toHaveLength(0);
  });

  it('logs in again once when vRA 8 answers 401 to the cached bearer', async () => {
    let refused = false;
    const { fake, gql } = await start(
      vra8((request) => {
        if (request.path === '/catalog/api/items' && !refused) {
          refused = true;
          return { status: 401, body: { message: 'expired' } };
        }
        return undefined;
      }),
      { VRA_API_GENERATION: '8' },
    );
    expect((await gql('{ entitledCatalogItems { totalCount } }')).errors).toBeUndefined();
    const lists = fake.received.filter((r) => r.path === '/catalog/api/items');
    expect(lists).toHaveLength(2);
    expect(lists[0]?.authorization).not.toBe(lists[1]?.authorization);
    expect(fake.received.filter((r) => r.path === '/iaas/api/login')).toHaveLength(2);
  });

  it('speaks vRA 7 when /iaas/api/about answers 404', async () => {
    const { fake, gql } = await start(
      vra8((request) => (request.path === '/iaas/api/about' ? { status: 404 } : undefined)),
    );
    await gql('{ entitledCatalogItems { totalCount } }');
    expect(fake.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /iaas/api/about',
      'POST /identity/api/tokens',
    ]);
  });

  it('asks again on the next call when the question failed', async () => {
    let failures = 1;
    const { fake, gql } = await start(
      vra8((request) => {
        if (request.path === '/iaas/api/about' && failures > 0) {
          failures -= 1;
          return { status: 503, body: { message: 'starting' } };
        }
        return undefined;
      }),
    );
    const failed = await gql('{ entitledCatalogItems { totalCount } }');
    expect(failed.errors?.[0]?.extensions?.['code']).toMatch(/^UPSTREAM_/);
    const answered = await gql('{ entitledCatalogItems { totalCount } }');
    expect(answered.errors).toBeUndefined();
    expect(fake.received.filter((r) => r.path === '/iaas/api/about')).toHaveLength(2);
  });

  it('signs a person in with CSP and /iaas/api/login, their tenant as the domain', async () => {
    const { fake, gql } = await start(vra8(), { VRA_API_GENERATION: '8' });
    const answer = await gql(
      `mutation { signIn(username: "svc", password: "secret-pass-8", tenant: "corp.local") { name } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(fake.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /csp/gateway/am/api/login',
      'POST /iaas/api/login',
    ]);
    const refused = await gql(
      `mutation { signIn(username: "svc", password: "wrong-password", tenant: "corp.local") { name } }`,
    );
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
  });
});
