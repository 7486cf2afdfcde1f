import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { basic, bodyOf, calls } from '../helpers/nsx.ts';
import { startStack, type Stack } from '../helpers/stack.ts';
import { errorXml } from '../../simulators/nsx/v/index.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});
beforeEach(() => {
  stack.nsx.reset();
});

const fields =
  'id name description protocol ports sourcePorts revision inheritanceAllowed scope { id }';

describe('services and service', () => {
  it('lists the services of a scope on the corrected path', async () => {
    const answer = await stack.gql<any>(`{ services(scopeId: "datacenter-2") { ${fields} } }`);
    expect(answer.data?.services).toEqual([
      {
        id: 'application-410',
        name: 'dc-west-ssh',
        description: '',
        protocol: 'TCP',
        ports: '22',
        sourcePorts: null,
        revision: 2,
        inheritanceAllowed: true,
        scope: { id: 'datacenter-2' },
      },
    ]);
    expect(calls(stack.nsx)).toEqual(['GET /api/2.0/services/application/scope/datacenter-2']);
    expect(stack.nsx.requests[0]?.headers['authorization']).toBe(basic(stack.nsx));
  });

  it('reads one service on /application/{id} (not applicationgroup), null when unknown', async () => {
    const answer = await stack.gql<any>(
      `{ dns: service(id: "application-401") { ${fields} } gone: service(id: "application-9") { id } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      dns: {
        id: 'application-401',
        name: 'DNS-UDP',
        description: '',
        protocol: 'UDP',
        ports: '53',
        sourcePorts: '1024-65535',
        revision: 2,
        inheritanceAllowed: true,
        scope: { id: 'globalroot-0' },
      },
      gone: null,
    });
    expect(calls(stack.nsx).sort()).toEqual([
      'GET /api/2.0/services/application/application-401',
      'GET /api/2.0/services/application/application-9',
    ]);
  });
});

describe('createService', () => {
  const create = `mutation ($scope: ID!, $input: ServiceInput!) { createService(scopeId: $scope, input: $input) { ${fields} } }`;

  it('posts to /application/{scope} (no scope segment), then reads the service back', async () => {
    const answer = await stack.gql<any>(create, {
      scope: 'globalroot-0',
      input: {
        name: 'Web <8080> & "co"',
        protocol: 'tcp',
        ports: '80,443,8000-8080',
        sourcePorts: '1024-65535',
      },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.createService).toEqual({
      id: 'application-411',
      name: 'Web <8080> & "co"',
      description: '',
      protocol: 'TCP',
      ports: '80,443,8000-8080',
      sourcePorts: '1024-65535',
      revision: 0,
      inheritanceAllowed: false,
      scope: { id: 'globalroot-0' },
    });
    expect(calls(stack.nsx)).toEqual([
      'POST /api/2.0/services/application/globalroot-0',
      'GET /api/2.0/services/application/application-411',
    ]);
    expect(stack.nsx.requests[0]?.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(bodyOf(stack.nsx.requests[0])).toEqual({
      application: {
        name: 'Web <8080> & "co"',
        element: {
          applicationProtocol: 'TCP',
          value: '80,443,8000-8080',
          sourcePort: '1024-65535',
        },
      },
    });
  });

  it('creates an ICMP service with its type name', async () => {
    const answer = await stack.gql<any>(create, {
      scope: 'globalroot-0',
      input: { name: 'ping', protocol: 'ICMP', ports: 'echo-reply' },
    });
    expect(answer.data?.createService).toMatchObject({ protocol: 'ICMP', ports: 'echo-reply' });
  });

  it.each([
    ['an unknown protocol', { name: 'n', protocol: 'SCTP' }],
    ['a port out of range', { name: 'n', protocol: 'TCP', ports: '70000' }],
    ['ports with spaces', { name: 'n', protocol: 'TCP', ports: '80, 443' }],
    ['an empty name', { name: '', protocol: 'TCP', ports: '80' }],
    ['source ports on ICMP', { name: 'n', protocol: 'ICMP', sourcePorts: '1' }],
  ])('refuses %s before any call', async (_what, input) => {
    const answer = await stack.gql<any>(create, { scope: 'globalroot-0', input });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(stack.nsx.requests).toHaveLength(0);
  });
});

describe('updateService', () => {
  const update = `mutation ($id: ID!, $input: ServiceInput!) { updateService(id: $id, input: $input) { ${fields} } }`;

  it('puts the whole current object back with its revision and the new fields', async () => {
    const answer = await stack.gql<any>(update, {
      id: 'application-371',
      input: { name: 'Renamed again', protocol: 'UDP', ports: '500,4500' },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.updateService).toMatchObject({
      name: 'Renamed again',
      protocol: 'UDP',
      ports: '500,4500',
      revision: 3,
    });
    expect(calls(stack.nsx)).toEqual([
      'GET /api/2.0/services/application/application-371',
      'PUT /api/2.0/services/application/application-371',
      'GET /api/2.0/services/application/application-371',
    ]);
    expect(bodyOf(stack.nsx.requests[1])['application']).toMatchObject({
      objectId: 'application-371',
      revision: '2',
      name: 'Renamed again',
      type: { typeName: 'Application' },
      element: { applicationProtocol: 'UDP', value: '500,4500' },
    });
  });

  it('answers CONFLICT when the manager says the revision is stale', async () => {
    stack.nsx.faults.inject({
      fault: {
        kind: 'status',
        status: 409,
        body: errorXml('101', 'Concurrent object access error.'),
      },
      method: 'PUT',
    });
    const answer = await stack.gql<any>(update, {
      id: 'application-371',
      input: { name: 'x', protocol: 'UDP' },
    });
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      upstream: { service: 'nsx', status: 409, code: '101' },
    });
  });
});

describe('deleteService', () => {
  it('refuses to delete a service in use without force, and deletes it with force', async () => {
    const refused = await stack.gql<any>(
      `mutation { deleteService(id: "application-161") { id } }`,
    );
    expect(refused.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      upstream: { service: 'nsx', status: 400, code: '220' },
    });
    const forced = await stack.gql<any>(
      `mutation { deleteService(id: "application-161", force: true) { id deleted } }`,
    );
    expect(forced.data?.deleteService).toEqual({ id: 'application-161', deleted: true });
    expect(calls(stack.nsx)).toEqual([
      'DELETE /api/2.0/services/application/application-161?force=false',
      'DELETE /api/2.0/services/application/application-161?force=true',
    ]);
  });
});
