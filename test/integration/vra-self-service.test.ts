import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRequest } from '../../simulators/vra/v7/index.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startStack, type Stack } from '../helpers/stack.ts';
import { bearerOf, catalogCalls, expectNoSecrets, firstError, vraLogin } from '../helpers/vra.ts';

const consumer = '/catalog-service/api/consumer';
const centos = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01';
const webApp = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c02';
const restricted = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c04';
const development = '11ebafdb-bc9f-4b39-9a16-e2015b412627';
const quality = '7276e9b5-883c-42f3-bdf7-62e7f0605cd6';
const powerOff = '8f664760-5d2d-4e97-8ae3-7fa515144f72';
const powerOn = '3c0a1d3e-7b59-4a53-9d7e-0a4f2e6b9c11';
const consoleLink = '613b34f4-f7c9-4171-87a3-79b6e6f7b82c';
const jane = { username: 'jane@vsphere.local', password: 'jane-secret' };

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ vra: { users: [jane], manualClock: true, requestStepMs: 1000 } });
});
afterAll(async () => {
  await stack.close();
});

/** Catalog calls made while `run` ran. */
async function callsDuring(run: () => Promise<unknown>): Promise<RecordedRequest[]> {
  const before = stack.vra.requests.length;
  await run();
  return stack.vra.requests.slice(before).filter((r) => r.path.startsWith('/catalog-service/'));
}

const bodyOf = (request: RecordedRequest | undefined): any =>
  JSON.parse(request?.body.toString('utf8') ?? 'null');

async function janeHeaders(): Promise<Record<string, string>> {
  return { 'x-vra-authorization': `Bearer ${await vraLogin(stack.vra, jane)}` };
}

const order = `mutation($input: RequestCatalogItemInput!) {
  requestCatalogItem(input: $input) {
    request { id requestNumber state phase final description catalogItemId requestedFor dateCreated }
  }
}`;

describe('entitled catalog items', () => {
  it('pages the entitled items with their business groups (1-based page and limit, bearer, JSON)', async () => {
    const query = `query($after: String) { entitledCatalogItems(first: 2, after: $after) {
      totalCount pageInfo { hasNextPage endCursor }
      nodes { id name description catalogItemTypeId outputResourceTypeId businessGroups { id name } }
    } }`;
    let first: any;
    const calls = await callsDuring(async () => {
      first = await stack.gql(query);
    });
    expect(first.errors).toBeUndefined();
    const page = first.data.entitledCatalogItems;
    expect(page.totalCount).toBe(4);
    expect(page.pageInfo.hasNextPage).toBe(true);
    expect(page.nodes[0]).toEqual({
      id: centos,
      name: 'CentOS 7 Machine',
      description: 'A CentOS 7 virtual machine on vSphere',
      catalogItemTypeId: 'com.vmware.csp.component.cafe.composition.blueprint',
      outputResourceTypeId: 'composition.resource.type.deployment',
      businessGroups: [{ id: development, name: 'Development' }],
    });
    expect(page.nodes[1].businessGroups).toEqual([
      { id: development, name: 'Development' },
      { id: quality, name: 'Quality Engineering' },
    ]);
    expect(calls.map((c) => [c.method, c.path, c.query.get('page'), c.query.get('limit')])).toEqual(
      [['GET', `${consumer}/entitledCatalogItemViews`, '1', '2']],
    );
    expect(bearerOf(calls[0])).toBe(stack.vra.issuedTokens().at(-1));
    expect(calls[0]?.headers.accept).toBe('application/json');

    const second = await stack.gql(query, { after: page.pageInfo.endCursor });
    expect(
      second.data?.['entitledCatalogItems'].nodes.map((n: { name: string }) => n.name),
    ).toEqual(['Windows Server 2019', 'Oracle Database (restricted)']);
    expect(second.data?.['entitledCatalogItems'].pageInfo.hasNextPage).toBe(false);
  });

  it('lists only what the caller is entitled to', async () => {
    const answer = await stack.gql(
      '{ entitledCatalogItems { totalCount nodes { id } } }',
      {},
      await janeHeaders(),
    );
    expect(answer.data?.['entitledCatalogItems'].totalCount).toBe(3);
    expect(
      answer.data?.['entitledCatalogItems'].nodes.map((n: { id: string }) => n.id),
    ).not.toContain(restricted);
  });

  it('reads a request template only when asked, once per item per operation', async () => {
    const without = await callsDuring(() =>
      stack.gql('{ entitledCatalogItems(first: 4) { nodes { id name } } }'),
    );
    expect(without.map((c) => c.path)).toEqual([`${consumer}/entitledCatalogItemViews`]);

    let answer: any;
    const calls = await callsDuring(async () => {
      answer = await stack.gql(`{
        entitledCatalogItems(first: 2) { nodes { id requestTemplate } }
        again: entitledCatalogItems(first: 2) { nodes { id requestTemplate } }
      }`);
    });
    expect(answer.errors).toBeUndefined();
    const templates = calls.filter((c) => c.path.endsWith('/requests/template'));
    expect(templates.map((c) => c.path).sort()).toEqual([
      `${consumer}/entitledCatalogItems/${centos}/requests/template`,
      `${consumer}/entitledCatalogItems/${webApp}/requests/template`,
    ]);
    const template = answer.data.entitledCatalogItems.nodes[0].requestTemplate;
    expect(template).toMatchObject({
      type: 'com.vmware.vcac.catalog.domain.request.CatalogItemProvisioningRequest',
      catalogItemId: centos,
      requestedFor: stack.vra.username,
      businessGroupId: development,
      data: { _number_of_instances: 1, vSphere_Machine_1: { data: { cpu: 1, memory: 2048 } } },
    });
  });
});

describe('requestCatalogItem', () => {
  it('submits the template with data merged key by key, the defaults kept, and answers the new request', async () => {
    let answer: any;
    const calls = await callsDuring(async () => {
      answer = await stack.gql(order, {
        input: {
          catalogItemId: webApp,
          description: 'QA web tier',
          reasons: 'Release 4.2 tests',
          data: {
            _leaseDays: 5,
            web: { data: { cpu: 4, machine_prefix: 'qa-web-', security_tags: ['dmz'] } },
          },
        },
      });
    });
    expect(answer.errors).toBeUndefined();
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET ${consumer}/entitledCatalogItems/${webApp}/requests/template`,
      `POST ${consumer}/entitledCatalogItems/${webApp}/requests`,
    ]);
    const [templateCall, post] = calls;
    expect(bearerOf(post)).toBe(bearerOf(templateCall));
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.headers.accept).toBe('application/json');
    const body = bodyOf(post);
    expect(body).toMatchObject({
      type: 'com.vmware.vcac.catalog.domain.request.CatalogItemProvisioningRequest',
      catalogItemId: webApp,
      requestedFor: stack.vra.username,
      businessGroupId: development,
      description: 'QA web tier',
      reasons: 'Release 4.2 tests',
    });
    expect(body.data._leaseDays).toBe(5);
    expect(body.data._number_of_instances).toBe(1);
    expect(body.data.web.typeFilter).toBe('WebApp3Tier*web');
    expect(body.data.web.data).toMatchObject({
      cpu: 4,
      memory: 4096,
      machine_prefix: 'qa-web-',
      security_tags: ['dmz'],
    });
    expect(body.data.web.data.disks).toHaveLength(1);
    expect(body.data.db.data.cpu).toBe(4);

    const request = answer.data.requestCatalogItem.request;
    expect(request).toMatchObject({
      state: 'SUBMITTED',
      phase: 'PENDING_PRE_APPROVAL',
      final: false,
      description: 'QA web tier',
      catalogItemId: webApp,
      requestedFor: stack.vra.username,
    });
    expect(stack.vra.consumer.request(request.id, stack.vra.username)).toBeDefined();
    expectNoSecrets(answer, stack.vra);
  });

  it('sends the business group asked for', async () => {
    const calls = await callsDuring(() =>
      stack.gql(order, { input: { catalogItemId: webApp, businessGroupId: quality } }),
    );
    expect(bodyOf(calls.at(-1)).businessGroupId).toBe(quality);
  });

  it('reads the new request when vRA answers 201 with only a Location', async () => {
    stack.vra.consumer.emptySubmitAnswers = true;
    try {
      let answer: any;
      const calls = await callsDuring(async () => {
        answer = await stack.gql(order, { input: { catalogItemId: centos } });
      });
      expect(answer.errors).toBeUndefined();
      const id = answer.data.requestCatalogItem.request.id;
      expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
        `GET ${consumer}/entitledCatalogItems/${centos}/requests/template`,
        `POST ${consumer}/entitledCatalogItems/${centos}/requests`,
        `GET ${consumer}/requests/${id}`,
      ]);
      expect(answer.data.requestCatalogItem.request.state).toBe('SUBMITTED');
    } finally {
      stack.vra.consumer.emptySubmitAnswers = false;
    }
  });

  it("answers FORBIDDEN with vRA's message to a caller not entitled, and submits nothing", async () => {
    let answer: any;
    const calls = await callsDuring(async () => {
      answer = await stack.gql(
        order,
        { input: { catalogItemId: restricted } },
        await janeHeaders(),
      );
    });
    const error = firstError(answer);
    expect(error.extensions?.['code']).toBe('FORBIDDEN');
    expect(error.extensions?.['upstream']).toMatchObject({
      service: 'vra',
      status: 403,
      code: '20117',
    });
    expect(String((error.extensions?.['upstream'] as any).message)).toContain('not entitled');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('answers NOT_FOUND (vRA code 20116) for an unknown item, and submits nothing', async () => {
    let answer: any;
    const calls = await callsDuring(async () => {
      answer = await stack.gql(order, {
        input: { catalogItemId: '00000000-0000-4000-8000-000000000000' },
      });
    });
    const error = firstError(answer);
    expect(error.extensions?.['code']).toBe('NOT_FOUND');
    expect(error.extensions?.['upstream']).toMatchObject({ status: 404, code: '20116' });
    expect(calls.map((c) => c.method)).toEqual(['GET']);
  });

  it.each([
    ['an unknown component', { nginx: { data: { cpu: 2 } } }, 'data has no field "nginx"'],
    ['an unknown field', { vSphere_Machine_1: { data: { gpu: 1 } } }, 'has no field "gpu"'],
    [
      'a field of the wrong type',
      { vSphere_Machine_1: { data: { cpu: 'two' } } },
      'data.vSphere_Machine_1.data.cpu must be a number, not a string',
    ],
  ])("answers BAD_USER_INPUT with vRA's 10101 message for %s", async (_name, data, said) => {
    const answer = await stack.gql(order, { input: { catalogItemId: centos, data } });
    const error = firstError(answer);
    expect(error.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(error.extensions?.['upstream']).toMatchObject({
      service: 'vra',
      status: 400,
      code: '10101',
    });
    expect(error.message).toContain(said);
  });

  it.each([
    ['data that is not an object', { catalogItemId: centos, data: [1, 2] }, 'input.data'],
    ['data that is a string', { catalogItemId: centos, data: 'cpu=2' }, 'input.data'],
    ['an id that could bend a URL', { catalogItemId: '../requests' }, 'input.catalogItemId'],
    [
      'a bad business group',
      { catalogItemId: centos, businessGroupId: 'a b' },
      'input.businessGroupId',
    ],
  ])('refuses %s with BAD_USER_INPUT and no upstream call', async (_name, input, argument) => {
    let answer: any;
    const calls = await callsDuring(async () => {
      answer = await stack.gql(order, { input });
    });
    const error = firstError(answer);
    expect(error.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(error.extensions?.['argument']).toBe(argument);
    expect(calls).toEqual([]);
  });
});

describe('requests and their resources', () => {
  it('reads a request with what it built: data unwrapped from typed literals, actions from operations', async () => {
    let answer: any;
    const calls = await callsDuring(async () => {
      answer = await stack.gql(
        `query($id: ID!) { catalogRequest(id: $id) {
          id state phase final requestNumber catalogItemId dateCompleted
          resources { id name resourceType status data actions { id name description } }
        } }`,
        { id: seededRequest.requestId },
      );
    });
    expect(answer.errors).toBeUndefined();
    const request = answer.data.catalogRequest;
    expect(request).toMatchObject({ state: 'SUCCESSFUL', phase: 'SUCCESSFUL', final: true });
    expect(request.resources.map((r: { resourceType: string }) => r.resourceType)).toEqual([
      'composition.resource.type.deployment',
      'Infrastructure.Virtual',
    ]);
    const machine = request.resources[1];
    expect(machine.data).toMatchObject({
      MachineName: machine.name,
      MachineCPU: 1,
      MachineMemory: 2048,
      MachineStatus: 'On',
      IS_COMPONENT_MACHINE: false,
      DISK_VOLUMES: [
        { DISK_INPUT_ID: 'DISK_INPUT_ID1', DISK_CAPACITY: 16, DISK_LABEL: 'Hard disk 1' },
      ],
    });
    const actions = machine.actions.map((a: { name: string }) => a.name);
    expect(actions).toEqual(expect.arrayContaining(['Power Off', 'Reboot', 'Destroy']));
    expect(machine.actions.map((a: { id: string }) => a.id)).not.toContain(consoleLink);
    expect(request.resources[0].data).toEqual({});
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET ${consumer}/requests/${seededRequest.requestId}`,
      `GET ${consumer}/requests/${seededRequest.requestId}/resources`,
    ]);
    expect(calls[1]?.query.get('page')).toBe('1');
    expect(calls[1]?.query.get('limit')).toBe('5000');
  });

  it("fails only the fields whose call failed: the resources, one item's template", async () => {
    stack.vra.faults.inject({
      method: 'GET',
      path: `${consumer}/requests/${seededRequest.requestId}/resources`,
      fault: { kind: 'status', status: 500 },
      times: 1,
    });
    const answer = await stack.gql(
      `query($id: ID!) { catalogRequest(id: $id) { id state resources { id } } }`,
      { id: seededRequest.requestId },
    );
    expect(answer.data?.['catalogRequest']).toEqual({
      id: seededRequest.requestId,
      state: 'SUCCESSFUL',
      resources: null,
    });
    expect(firstError(answer)).toMatchObject({
      path: ['catalogRequest', 'resources'],
      extensions: { code: 'UPSTREAM_ERROR', upstream: { service: 'vra', status: 500 } },
    });

    stack.vra.faults.inject({
      method: 'GET',
      path: `${consumer}/entitledCatalogItems/${webApp}/requests/template`,
      fault: { kind: 'status', status: 500 },
      times: 1,
    });
    const items = await stack.gql(
      '{ entitledCatalogItems(first: 2) { nodes { id requestTemplate } } }',
    );
    const nodes = items.data?.['entitledCatalogItems'].nodes;
    expect(nodes[0].requestTemplate).toMatchObject({ catalogItemId: centos });
    expect(nodes[1]).toEqual({ id: webApp, requestTemplate: null });
    expect(items.errors).toHaveLength(1);
  });

  it('answers null for a request or resource vRA does not know', async () => {
    const answer = await stack.gql(`{
      catalogRequest(id: "00000000-0000-4000-8000-000000000000") { id }
      catalogResource(id: "00000000-0000-4000-8000-000000000000") { id }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ catalogRequest: null, catalogResource: null });
  });

  it('lists requests newest first ($orderby=dateSubmitted desc)', async () => {
    const placed = await stack.gql(order, {
      input: { catalogItemId: centos, description: 'newest' },
    });
    let answer: any;
    const calls = await callsDuring(async () => {
      answer = await stack.gql(
        '{ catalogRequests(first: 3) { totalCount nodes { id description dateCreated } } }',
      );
    });
    expect(answer.errors).toBeUndefined();
    const nodes = answer.data.catalogRequests.nodes;
    expect(nodes[0].id).toBe(placed.data?.['requestCatalogItem'].request.id);
    const dates = nodes.map((n: { dateCreated: string }) => n.dateCreated);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.path).toBe(`${consumer}/requests`);
    expect(calls[0]?.query.get('$orderby')).toBe('dateSubmitted desc');
    expect(calls[0]?.query.get('page')).toBe('1');
    expect(calls[0]?.query.get('limit')).toBe('3');
  });

  it('reads one resource by id', async () => {
    const calls = await callsDuring(async () => {
      const answer = await stack.gql(
        `query($id: ID!) { catalogResource(id: $id) { id name resourceType data actions { name } } }`,
        { id: seededRequest.machineId },
      );
      expect(answer.data?.['catalogResource']).toMatchObject({
        id: seededRequest.machineId,
        resourceType: 'Infrastructure.Virtual',
      });
    });
    expect(calls.map((c) => c.path)).toEqual([`${consumer}/resources/${seededRequest.machineId}`]);
  });
});

describe('requestResourceAction', () => {
  it('reads the action template, submits it, reads the request from the Location, and the action takes effect', async () => {
    const placed = await stack.gql(order, { input: { catalogItemId: centos } });
    const requestId = placed.data?.['requestCatalogItem'].request.id as string;
    stack.vra.advance(2000);
    const built = await stack.gql(
      `query($id: ID!) { catalogRequest(id: $id) { state resources { id resourceType } } }`,
      { id: requestId },
    );
    expect(built.data?.['catalogRequest'].state).toBe('SUCCESSFUL');
    const machineId = built.data?.['catalogRequest'].resources[1].id as string;

    let answer: any;
    const calls = await callsDuring(async () => {
      answer = await stack.gql(
        `mutation($input: RequestResourceActionInput!) {
          requestResourceAction(input: $input) { request { id state final catalogItemId } }
        }`,
        { input: { resourceId: machineId, actionId: powerOff, reasons: 'maintenance' } },
      );
    });
    expect(answer.errors).toBeUndefined();
    const actionRequest = answer.data.requestResourceAction.request;
    expect(actionRequest).toMatchObject({ state: 'SUBMITTED', final: false, catalogItemId: null });
    const base = `${consumer}/resources/${machineId}/actions/${powerOff}/requests`;
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET ${base}/template`,
      `POST ${base}`,
      `GET ${consumer}/requests/${actionRequest.id}`,
    ]);
    expect(bodyOf(calls[1])).toEqual({
      type: 'com.vmware.vcac.catalog.domain.request.CatalogResourceRequest',
      resourceId: machineId,
      actionId: powerOff,
      description: null,
      reasons: 'maintenance',
      data: {},
    });

    stack.vra.advance(2000);
    const after = await stack.gql(
      `query($id: ID!) { catalogResource(id: $id) { data actions { id name } } }`,
      { id: machineId },
    );
    expect(after.data?.['catalogResource'].data.MachineStatus).toBe('Off');
    expect(after.data?.['catalogResource'].actions.map((a: { id: string }) => a.id)).toContain(
      powerOn,
    );
  });

  it('answers NOT_FOUND for an action the resource does not offer', async () => {
    const answer = await stack.gql(
      `mutation($input: RequestResourceActionInput!) { requestResourceAction(input: $input) { request { id } } }`,
      { input: { resourceId: seededRequest.machineId, actionId: consoleLink } },
    );
    expect(firstError(answer).extensions?.['code']).toBe('NOT_FOUND');
    expect(
      catalogCalls(stack.vra).filter((c) => c.method === 'POST' && c.path.includes(consoleLink)),
    ).toEqual([]);
  });
});
