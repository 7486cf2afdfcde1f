/**
 * The catalog schema over vRA 8: the gateway against the strict vRA 8
 * simulator (simulators/vra/v8), through HTTP. Detection by
 * GET /iaas/api/about, the override, a user's sign-in, items per project,
 * an order followed to its end, a day-2 action, publishing a blueprint, and
 * what vRA 8 lacks; and detection picking vRA 7 on the vRA 7 simulator.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { GatewayConfig } from '../../src/gateway-config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createGateway, type Gateway } from '../../src/server.ts';
import {
  developmentProject,
  qualityProject,
  seededTemplates,
  startVra8Simulator,
  vra8Users,
  type Vra8Simulator,
} from '../../simulators/vra/v8/index.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, startStack } from '../helpers/stack.ts';

interface Answer {
  status: number;
  headers: Headers;
  data?: any;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

interface Vra8Stack {
  sim: Vra8Simulator;
  gateway: Gateway;
  gql(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  close(): Promise<void>;
}

async function startVra8Stack(
  env: Record<string, string> = {},
  shared?: Vra8Simulator,
): Promise<Vra8Stack> {
  const sim = shared ?? (await startVra8Simulator({ requestStepMs: 40 }));
  const config = loadConfig({
    VRA_URL: sim.url.href,
    VRA_USERNAME: sim.username,
    VRA_PASSWORD: sim.password,
    VRO_URL: 'http://127.0.0.1:9/vco/api',
    NSX_URL: 'http://127.0.0.1:9',
    ...env,
  }) as GatewayConfig;
  const gateway = createGateway(config, { logger: createLogger('silent') });
  return {
    sim,
    gateway,
    async gql(query, variables, headers) {
      const response = await gateway.yoga.fetch(
        new Request('http://gateway.test/graphql', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'x-graphql-csrf': '1',
            ...headers,
          },
          body: JSON.stringify({ query, variables }),
        }),
      );
      const body = (await response.json()) as Omit<Answer, 'status' | 'headers'>;
      return { status: response.status, headers: response.headers, ...body };
    },
    async close() {
      await gateway.close();
      if (shared === undefined) await sim.close();
    },
  };
}

const entitled = `{ entitledCatalogItems(first: 50) { totalCount nodes { id name
  businessGroups { id name } requestTemplate } } }`;

const [centos, , windows] = seededTemplates;
const developer = vra8Users.find((user) => user.username.startsWith('developer'));

describe('detecting the generation at VRA_URL', () => {
  let stack: Vra8Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it('asks GET /iaas/api/about once, without a credential, when VRA_API_GENERATION is unset, and speaks vRA 8', async () => {
    stack = await startVra8Stack();
    const first = await stack.gql(entitled);
    const second = await stack.gql(entitled);
    expect(first.errors).toBeUndefined();
    expect(second.errors).toBeUndefined();
    const abouts = stack.sim.requestsTo('GET', '/iaas/api/about');
    expect(abouts).toHaveLength(1);
    expect(abouts[0]?.headers.authorization).toBeUndefined();
    expect(first.data.entitledCatalogItems.totalCount).toBe(seededTemplates.length);
  });

  it('asks nothing about the generation when VRA_API_GENERATION=8', async () => {
    stack = await startVra8Stack({ VRA_API_GENERATION: '8' });
    expect((await stack.gql(entitled)).errors).toBeUndefined();
    expect(stack.sim.requestsTo('GET', '/iaas/api/about')).toHaveLength(0);
    expect(stack.sim.requestsTo('POST', '/csp/gateway/am/api/login')).toHaveLength(1);
    expect(stack.sim.requestsTo('POST', '/iaas/api/login')).toHaveLength(1);
  });

  it('follows a request through the subscription when the subscription is what asks the generation', async () => {
    stack = await startVra8Stack({ VRA_API_GENERATION: '8' });
    const ordered = await stack.gql(
      'mutation($input: RequestCatalogItemInput!) { requestCatalogItem(input: $input) { request { id } } }',
      { input: { catalogItemId: centos!.id, data: { hostname: 'asked-01' } } },
    );
    expect(ordered.errors).toBeUndefined();
    const id = ordered.data.requestCatalogItem.request.id as string;
    const detecting = await startVra8Stack({}, stack.sim);
    const server = await listen(detecting.gateway);
    const sse = await SseSubscription.open(
      server.url,
      'subscription($id: ID!) { catalogRequest(id: $id) { id state final } }',
      { id },
      { 'x-graphql-csrf': '1' },
    );
    try {
      const states: string[] = [];
      for (;;) {
        const event = await sse.next();
        if (event === null || event.event === 'complete') break;
        expect(event.data.errors).toBeUndefined();
        states.push(event.data.data.catalogRequest.state);
      }
      expect(states.at(-1)).toBe('SUCCESSFUL');
      expect(stack.sim.requestsTo('GET', '/iaas/api/about')).toHaveLength(1);
      for (let waited = 0; detecting.gateway.clients.vra.activeWatches > 0; waited += 10) {
        if (waited > 5000) throw new Error('the poller did not stop within 5 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      sse.close();
      await server.close();
      await detecting.close();
    }
  });

  it('signs a person in without a tenant on vRA 8 (the CSP domain is optional)', async () => {
    stack = await startVra8Stack({ VRA_API_GENERATION: '8' });
    const user = developer!;
    const answer = await stack.gql(
      'mutation($u: String!, $p: String!) { signIn(username: $u, password: $p) { name tenant } }',
      { u: user.username, p: user.password },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.signIn).toEqual({ name: user.username, tenant: null });
    const [login] = stack.sim.requestsTo('POST', '/csp/gateway/am/api/login');
    expect(JSON.parse(login!.body.toString('utf8'))).toEqual({
      username: user.username,
      password: user.password,
    });
  });

  it('picks vRA 7 on the vRA 7 simulator (404 to /iaas/api/about) and answers as before', async () => {
    const v7 = await startStack({
      configure: (config) => ({ ...config, vra: { ...config.vra, generation: undefined } }),
    });
    try {
      const answer = await v7.gql<any>('{ providers(first: 2) { totalCount } }');
      expect(answer.errors).toBeUndefined();
      expect(answer.data.providers.totalCount).toBeGreaterThan(0);
      expect(v7.vra.requestsTo('GET', '/iaas/api/about')).toHaveLength(1);
      expect(v7.vra.requestsTo('GET', '/catalog-service/api/providers')).toHaveLength(1);
    } finally {
      await v7.close();
    }
  });
});

describe('the catalog journey on vRA 8', () => {
  let stack: Vra8Stack;
  let server: Awaited<ReturnType<typeof listen>>;
  const open: SseSubscription[] = [];

  beforeAll(async () => {
    stack = await startVra8Stack({ VRA_API_GENERATION: '8', VRA_TENANT: 'vsphere.local' });
    server = await listen(stack.gateway);
  });
  afterEach(() => {
    for (const subscription of open.splice(0)) subscription.close();
  });
  afterAll(async () => {
    await server.close();
    await stack.close();
  });

  /** Follows a request through the subscription until it completes; its last state. */
  async function followToEnd(id: string): Promise<any> {
    const sse = await SseSubscription.open(
      server.url,
      'subscription($id: ID!) { catalogRequest(id: $id) { id state phase final resources { id name resourceType actions { id name } } } }',
      { id },
      { 'x-graphql-csrf': '1' },
    );
    open.push(sse);
    expect(sse.status).toBe(200);
    let last: any;
    for (;;) {
      const event = await sse.next();
      if (event === null || event.event === 'complete') break;
      expect(event.data.errors).toBeUndefined();
      last = event.data.data.catalogRequest;
    }
    return last;
  }

  /** Orders CentOS for the service account's project and follows it to its end; the machine it made. */
  async function orderedMachine(hostname: string): Promise<any> {
    const ordered = await stack.gql(
      'mutation($input: RequestCatalogItemInput!) { requestCatalogItem(input: $input) { request { id } } }',
      { input: { catalogItemId: centos!.id, data: { hostname } } },
    );
    expect(ordered.errors).toBeUndefined();
    const built = await followToEnd(ordered.data.requestCatalogItem.request.id);
    return built.resources[0];
  }

  it('signs a developer in (CSP login, then /iaas/api/login) and lists only the items shared with their project', async () => {
    const user = developer!;
    const signedIn = await stack.gql(
      'mutation($u: String!, $p: String!) { signIn(username: $u, password: $p, tenant: "vsphere.local") { name via } }',
      { u: user.username, p: user.password },
    );
    expect(signedIn.errors).toBeUndefined();
    expect(signedIn.data.signIn).toEqual({ name: user.username, via: 'SESSION' });
    const line = signedIn.headers.getSetCookie().find((c) => c.startsWith('gateway_session='));
    const cookie = /^gateway_session=([^;]*)/.exec(line ?? '')?.[1] ?? '';
    const mine = await stack.gql(entitled, {}, { cookie: `gateway_session=${cookie}` });
    expect(mine.errors).toBeUndefined();
    const names = (mine.data.entitledCatalogItems.nodes as Array<{ name: string }>).map(
      (n) => n.name,
    );
    expect(names).toEqual([centos!.name]);
    // CentOS is shared with Development and Quality: the developer is a member of Development only.
    expect(mine.data.entitledCatalogItems.nodes[0].businessGroups).toEqual([
      { id: developmentProject.id, name: developmentProject.name },
    ]);
    const [bearer] = stack.sim
      .requestsTo('GET', '/catalog/api/items')
      .map((r) => /^Bearer (\S+)$/.exec(r.headers.authorization ?? '')?.[1])
      .filter((token) => token !== undefined && stack.sim.bearerUser(token) === user.username);
    expect(bearer).toBeDefined();
    const out = await stack.gql(
      'mutation { signOut }',
      {},
      { cookie: `gateway_session=${cookie}` },
    );
    expect(out.data).toEqual({ signOut: true });
    const [logout] = stack.sim.requestsTo('POST', '/csp/gateway/am/api/auth/logout');
    expect(logout?.headers.authorization).toBe(`Bearer ${bearer}`);
    expect(stack.sim.bearerUser(bearer!)).toBeUndefined();
  });

  it('logs the service account in again once when vRA 8 refuses its bearer', async () => {
    expect((await stack.gql(entitled)).errors).toBeUndefined();
    const logins = stack.sim.requestsTo('POST', '/iaas/api/login').length;
    stack.sim.expireTokensOf(stack.sim.username);
    const again = await stack.gql(entitled);
    expect(again.errors).toBeUndefined();
    expect(stack.sim.requestsTo('POST', '/iaas/api/login')).toHaveLength(logins + 1);
  });

  it('orders an item with its project and inputs, and follows the request to SUCCESSFUL with its resources', async () => {
    const ordered = await stack.gql(
      `mutation($input: RequestCatalogItemInput!) { requestCatalogItem(input: $input) {
        request { id state final catalogItemId } } }`,
      {
        input: {
          catalogItemId: centos!.id,
          businessGroupId: qualityProject.id,
          description: 'qa-web-01',
          reasons: 'journey test',
          data: { hostname: 'qa-web-01' },
        },
      },
    );
    expect(ordered.errors).toBeUndefined();
    const request = ordered.data.requestCatalogItem.request;
    expect(request).toMatchObject({ final: false, catalogItemId: centos!.id });
    const [order] = stack.sim.requestsTo('POST', `/catalog/api/items/${centos!.id}/request`);
    expect(JSON.parse(order!.body.toString('utf8'))).toEqual({
      deploymentName: 'qa-web-01',
      projectId: qualityProject.id,
      inputs: { size: 'small', cpuCount: 1, hostname: 'qa-web-01' },
      reason: 'journey test',
    });
    const end = await followToEnd(request.id);
    expect(end).toMatchObject({ id: request.id, state: 'SUCCESSFUL', final: true });
    expect(end.resources.length).toBeGreaterThan(0);
    expect(end.resources[0].resourceType).toBe('Cloud.vSphere.Machine');
  });

  it('runs a day-2 action on a deployed resource and follows it to its end', async () => {
    const machine = await orderedMachine('dev-web-02');
    const action = machine.actions[0];
    expect(action).toBeDefined();
    const acted = await stack.gql(
      `mutation($input: RequestResourceActionInput!) { requestResourceAction(input: $input) {
        request { id catalogItemId } } }`,
      { input: { resourceId: machine.id, actionId: action.id, reasons: 'day 2' } },
    );
    expect(acted.errors).toBeUndefined();
    expect(acted.data.requestResourceAction.request.catalogItemId).toBeNull();
    const posted = stack.sim.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith(`/resources/${machine.id}/requests`),
    );
    expect(posted).toHaveLength(1);
    expect(JSON.parse(posted[0]!.body.toString('utf8'))).toMatchObject({
      actionId: action.id,
      reason: 'day 2',
    });
    const end = await followToEnd(acted.data.requestResourceAction.request.id);
    expect(end.final).toBe(true);
  });

  it('reads a resource another gateway made, and runs its action, by asking vRA 8 which deployment holds it', async () => {
    const machine = await orderedMachine('dev-web-03');
    // a replica (or this gateway after a restart) that never listed the deployment
    const other = await startVra8Stack({ VRA_API_GENERATION: '8' }, stack.sim);
    try {
      const before = stack.sim.requestsTo('GET', `/deployment/api/resources/${machine.id}`).length;
      const read = await other.gql(
        'query($id: ID!) { catalogResource(id: $id) { id name resourceType actions { id name } } }',
        { id: machine.id },
      );
      expect(read.errors).toBeUndefined();
      expect(read.data.catalogResource).toEqual({
        id: machine.id,
        name: machine.name,
        resourceType: 'Cloud.vSphere.Machine',
        actions: machine.actions,
      });
      expect(stack.sim.requestsTo('GET', `/deployment/api/resources/${machine.id}`)).toHaveLength(
        before + 1,
      );
      const acted = await other.gql(
        `mutation($input: RequestResourceActionInput!) { requestResourceAction(input: $input) {
          request { id } } }`,
        { input: { resourceId: machine.id, actionId: machine.actions[0].id, reasons: 'day 2' } },
      );
      expect(acted.errors).toBeUndefined();
      // the deployment it named is remembered: the action asked no second time
      expect(stack.sim.requestsTo('GET', `/deployment/api/resources/${machine.id}`)).toHaveLength(
        before + 1,
      );
      expect(
        stack.sim.requests.filter(
          (r) =>
            r.method === 'POST' &&
            r.path.includes('/deployment/api/deployments/') &&
            r.path.endsWith(`/resources/${machine.id}/requests`),
        ),
      ).toHaveLength(1);
      const unknown = await other.gql(
        'query { catalogResource(id: "6b5b3c9e-0000-4000-8000-000000000000") { id } }',
      );
      expect(unknown.data).toEqual({ catalogResource: null });
    } finally {
      await other.close();
    }
  });

  it('publishes a blueprint: a released version, carried by its project source and shared with the project', async () => {
    const template = windows!;
    const published = await stack.gql(
      `mutation($input: PublishBlueprintInput!) { publishBlueprint(input: $input) {
        catalogItem { id name provider { id } } } }`,
      {
        input: {
          virtualMachineTemplateId: template.id,
          name: template.name,
          description: 'Released through the gateway',
          iconId: 'cafe_default_icon_genericCatalogItem',
          catalogItemTypeId: 'com.vmw.blueprint',
          outputResourceTypeId: 'deployment',
          organization: {
            tenantRef: 'vsphere.local',
            tenantLabel: 'vsphere.local',
            subtenantRef: developmentProject.id,
          },
        },
      },
    );
    expect(published.errors).toBeUndefined();
    expect(published.data.publishBlueprint.catalogItem).toEqual({
      id: template.id,
      name: template.name,
      provider: null,
    });
    const [version] = stack.sim.requestsTo(
      'POST',
      `/blueprint/api/blueprints/${template.id}/versions`,
    );
    expect(JSON.parse(version!.body.toString('utf8'))).toMatchObject({
      version: '2',
      release: true,
    });
    const [shared] = stack.sim.requestsTo('POST', '/catalog/api/admin/entitlements');
    expect(JSON.parse(shared!.body.toString('utf8'))).toMatchObject({
      projectId: developmentProject.id,
      definition: { type: 'CatalogSourceIdentifier' },
    });
  });

  it('answers registerCatalogItem with NOT_SUPPORTED naming vRA 8, and makes no call', async () => {
    const before = stack.sim.requests.length;
    const answer = await stack.gql(
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
    expect(stack.sim.requests.length).toBe(before);
  });

  it('answers null for the provider fields, which vRA 8 lacks, asking it nothing', async () => {
    const before = stack.sim.requests.length;
    const answer = await stack.gql(
      '{ providers { totalCount } providerByName(name: "iaas-service") { id } }',
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ providers: null, providerByName: null });
    expect(stack.sim.requests.length).toBe(before);
  });

  it("lists the caller's requests as their deployments' last requests, each readable by id", async () => {
    const answer: any = await stack.gql(
      '{ catalogRequests(first: 50) { totalCount nodes { id state description catalogItemId } } }',
    );
    expect(answer.errors).toBeUndefined();
    const { totalCount, nodes } = answer.data.catalogRequests;
    expect(nodes.length).toBe(totalCount);
    expect(nodes.length).toBeGreaterThan(0);
    for (const node of nodes) {
      const read: any = await stack.gql('query($id: ID!) { catalogRequest(id: $id) { id } }', {
        id: node.id,
      });
      expect(read.data.catalogRequest).toEqual({ id: node.id });
    }
  });
});
