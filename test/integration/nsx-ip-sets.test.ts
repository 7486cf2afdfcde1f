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
  'id name description addresses revision inheritanceAllowed scope { id name objectTypeName }';

describe('ipSets and ipSet', () => {
  it('lists the IP sets of globalroot-0 by default, on the corrected path with Basic auth', async () => {
    const answer = await stack.gql<any>(`{ ipSets { id name addresses } }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.ipSets).toEqual([
      { id: 'ipset-1', name: 'sys-gen-empty-ipset-edge-fw', addresses: [] },
      {
        id: 'ipset-3',
        name: 'IPSET-2',
        addresses: ['10.112.1.1', '10.112.2.0/24', '192.168.10.10-192.168.10.20'],
      },
      { id: 'ipset-4', name: 'R&D <lab> "α"', addresses: ['10.20.0.0/16', '2001:db8::/32'] },
    ]);
    expect(calls(stack.nsx)).toEqual(['GET /api/2.0/services/ipset/scope/globalroot-0']);
    const [request] = stack.nsx.requests;
    expect(request?.headers['authorization']).toBe(basic(stack.nsx));
    expect(request?.headers['accept']).toBe('application/xml');
    expect(request?.body.length).toBe(0);
  });

  it('lists another scope and gives each set its scope', async () => {
    const answer = await stack.gql<any>(`{ ipSets(scopeId: "datacenter-2") { ${fields} } }`);
    expect(answer.data?.ipSets).toEqual([
      {
        id: 'ipset-7',
        name: 'dc-west-mgmt',
        description: '',
        addresses: ['172.16.0.0/16'],
        revision: 1,
        inheritanceAllowed: false,
        scope: { id: 'datacenter-2', name: 'Datacenter West', objectTypeName: 'Datacenter' },
      },
    ]);
    expect(calls(stack.nsx)).toEqual(['GET /api/2.0/services/ipset/scope/datacenter-2']);
  });

  it('answers one IP set by id, and null when the manager does not know it', async () => {
    const answer = await stack.gql<any>(
      `{ known: ipSet(id: "ipset-4") { ${fields} } unknown: ipSet(id: "ipset-99") { id } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      known: {
        id: 'ipset-4',
        name: 'R&D <lab> "α"',
        description: 'names keep every character',
        addresses: ['10.20.0.0/16', '2001:db8::/32'],
        revision: 3,
        inheritanceAllowed: true,
        scope: { id: 'globalroot-0', name: 'Global', objectTypeName: 'GlobalRoot' },
      },
      unknown: null,
    });
    expect(calls(stack.nsx).sort()).toEqual([
      'GET /api/2.0/services/ipset/ipset-4',
      'GET /api/2.0/services/ipset/ipset-99',
    ]);
  });

  it('answers policyPath null on NSX-v, which names a set by its id only, without another call', async () => {
    const answer = await stack.gql<any>(
      `{ ipSets { policyPath } ipSet(id: "ipset-4") { id policyPath } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.ipSets.map((set: { policyPath: unknown }) => set.policyPath)).toEqual([
      null,
      null,
      null,
    ]);
    expect(answer.data?.ipSet).toEqual({ id: 'ipset-4', policyPath: null });
    expect(calls(stack.nsx).sort()).toEqual([
      'GET /api/2.0/services/ipset/ipset-4',
      'GET /api/2.0/services/ipset/scope/globalroot-0',
    ]);
  });

  it('reads an IP set once per request however often it is asked for', async () => {
    await stack.gql<any>(`{ a: ipSet(id: "ipset-3") { id } b: ipSet(id: "ipset-3") { name } }`);
    expect(calls(stack.nsx)).toEqual(['GET /api/2.0/services/ipset/ipset-3']);
  });

  it('refuses an unsafe id or scope before any call', async () => {
    const answer = await stack.gql<any>(
      `{ a: ipSet(id: "../application/x") { id } b: ipSets(scopeId: "a b") { id } }`,
    );
    expect(answer.errors?.map((e) => [e.path?.[0], e.extensions?.['code']])).toEqual([
      ['a', 'BAD_USER_INPUT'],
      ['b', 'BAD_USER_INPUT'],
    ]);
    expect(stack.nsx.requests).toHaveLength(0);
  });

  it('fails only the field of an unknown scope', async () => {
    const answer = await stack.gql<any>(
      `{ ipSets(scopeId: "datacenter-404") { id } services { id } }`,
    );
    expect(answer.data?.ipSets).toBeNull();
    expect(answer.data?.services).toHaveLength(5);
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { service: 'nsx', status: 404, code: '202' },
    });
  });
});

describe('createIpSet', () => {
  const create = `mutation ($scope: ID!, $input: IpSetInput!) { createIpSet(scopeId: $scope, input: $input) { ${fields} } }`;

  it('posts the set to its scope, then reads it back by the id the manager gave', async () => {
    const name = 'web & db <tier> "α" – Zürich';
    const answer = await stack.gql<any>(create, {
      scope: 'datacenter-2',
      input: {
        name,
        description: 'a < b & "c"',
        addresses: ['10.0.0.1', ' 10.0.1.0/24', '10.0.2.1-10.0.2.9', '2001:db8::1'],
        inheritanceAllowed: true,
      },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.createIpSet).toEqual({
      id: 'ipset-8',
      name,
      description: 'a < b & "c"',
      addresses: ['10.0.0.1', '10.0.1.0/24', '10.0.2.1-10.0.2.9', '2001:db8::1'],
      revision: 0,
      inheritanceAllowed: true,
      scope: { id: 'datacenter-2', name: 'Datacenter West', objectTypeName: 'Datacenter' },
    });
    expect(calls(stack.nsx)).toEqual([
      'POST /api/2.0/services/ipset/datacenter-2',
      'GET /api/2.0/services/ipset/ipset-8',
    ]);
    const post = stack.nsx.requests[0];
    expect(post?.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(post?.headers['authorization']).toBe(basic(stack.nsx));
    expect(bodyOf(post)).toEqual({
      ipset: {
        name,
        description: 'a < b & "c"',
        value: '10.0.0.1,10.0.1.0/24,10.0.2.1-10.0.2.9,2001:db8::1',
        inheritanceAllowed: 'true',
      },
    });
  });

  it('shows the new set in a list read later in the same request', async () => {
    const answer = await stack.gql<any>(
      `mutation { createIpSet(input: { name: "n", addresses: ["10.0.0.1"] }) { id } }`,
    );
    expect(answer.data?.createIpSet).toEqual({ id: 'ipset-8' });
    const list = await stack.gql<any>(`{ ipSets { id } }`);
    expect(list.data?.ipSets).toContainEqual({ id: 'ipset-8' });
  });

  it.each([
    ['an empty name', { name: ' ', addresses: ['10.0.0.1'] }],
    ['no addresses', { name: 'n', addresses: [] }],
    ['an empty address', { name: 'n', addresses: [''] }],
    ['a malformed CIDR', { name: 'n', addresses: ['10.0.0.0/40'] }],
    ['a backwards range', { name: 'n', addresses: ['10.0.0.9-10.0.0.1'] }],
    ['a comma inside an address', { name: 'n', addresses: ['10.0.0.1,10.0.0.2'] }],
  ])('refuses %s before any call', async (_what, input) => {
    const answer = await stack.gql<any>(create, { scope: 'globalroot-0', input });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(stack.nsx.requests).toHaveLength(0);
  });

  it('answers CONFLICT with the manager refusal of a duplicate name', async () => {
    const answer = await stack.gql<any>(create, {
      scope: 'globalroot-0',
      input: { name: 'IPSET-2', addresses: ['10.0.0.1'] },
    });
    expect(answer.errors?.[0]?.extensions).toEqual({
      code: 'CONFLICT',
      upstream: {
        service: 'nsx',
        status: 400,
        code: '213',
        message: 'An IP set named IPSET-2 already exists in globalroot-0.',
      },
    });
  });

  it('answers UPSTREAM_BAD_RESPONSE when the create answer has no Location', async () => {
    stack.nsx.switches.omitLocation = true;
    const answer = await stack.gql<any>(create, {
      scope: 'globalroot-0',
      input: { name: 'n', addresses: ['10.0.0.1'] },
    });
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'UPSTREAM_BAD_RESPONSE',
      upstream: { service: 'nsx', status: 201 },
    });
  });
});

describe('updateIpSet', () => {
  const update = `mutation ($id: ID!, $input: IpSetInput!) { updateIpSet(id: $id, input: $input) { ${fields} } }`;

  it('reads the current set and puts it back with its revision, unmodelled elements included', async () => {
    const answer = await stack.gql<any>(update, {
      id: 'ipset-1',
      input: { name: 'renamed <é>', addresses: ['10.1.1.1'] },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.updateIpSet).toMatchObject({
      id: 'ipset-1',
      name: 'renamed <é>',
      addresses: ['10.1.1.1'],
      revision: 3,
      inheritanceAllowed: true,
    });
    expect(calls(stack.nsx)).toEqual([
      'GET /api/2.0/services/ipset/ipset-1',
      'PUT /api/2.0/services/ipset/ipset-1',
    ]);
    const put = stack.nsx.requests[1];
    expect(put?.headers['content-type']).toBe('application/xml; charset=utf-8');
    const body = bodyOf(put)['ipset'] as Record<string, unknown>;
    expect(body).toMatchObject({
      objectId: 'ipset-1',
      revision: '2',
      name: 'renamed <é>',
      description: '',
      value: '10.1.1.1',
      inheritanceAllowed: 'true',
      vsmUuid: '42271168-863F-EAA7-C3FD-BCFED40B77BB',
      extendedAttributes: { extendedAttribute: { name: 'isReadOnly', value: 'true' } },
      scope: { id: 'globalroot-0', objectTypeName: 'GlobalRoot', name: 'Global' },
    });
  });

  it('answers the set the manager answered to the PUT, at its new revision, without reading it again', async () => {
    const answer = await stack.gql<any>(update, {
      id: 'ipset-3',
      input: { name: 'web', addresses: ['10.0.0.1', '10.0.1.0/24'], inheritanceAllowed: true },
    });
    expect(answer.errors).toBeUndefined();
    expect(calls(stack.nsx)).toEqual([
      'GET /api/2.0/services/ipset/ipset-3',
      'PUT /api/2.0/services/ipset/ipset-3',
    ]);
    const sentRevision = Number(
      (bodyOf(stack.nsx.requests[1])['ipset'] as Record<string, unknown>)['revision'],
    );
    const afterwards = await stack.gql<any>(`{ ipSet(id: "ipset-3") { ${fields} } }`);
    expect(answer.data?.updateIpSet).toEqual(afterwards.data?.ipSet);
    expect(answer.data?.updateIpSet).toMatchObject({
      id: 'ipset-3',
      name: 'web',
      description: 'web tier addresses',
      addresses: ['10.0.0.1', '10.0.1.0/24'],
      revision: sentRevision + 1,
      inheritanceAllowed: true,
      scope: { id: 'globalroot-0' },
    });
  });

  it('reads the set once more when the manager answers the PUT with no body', async () => {
    stack.nsx.switches.emptyIpSetPutAnswer = true;
    const answer = await stack.gql<any>(update, {
      id: 'ipset-3',
      input: { name: 'web', addresses: ['10.0.0.2'] },
    });
    expect(answer.errors).toBeUndefined();
    expect(calls(stack.nsx)).toEqual([
      'GET /api/2.0/services/ipset/ipset-3',
      'PUT /api/2.0/services/ipset/ipset-3',
      'GET /api/2.0/services/ipset/ipset-3',
    ]);
    expect(answer.data?.updateIpSet).toMatchObject({
      name: 'web',
      addresses: ['10.0.0.2'],
      revision: 2,
    });
  });

  it('keeps the description when the input leaves it out and clears it on null', async () => {
    let answer = await stack.gql<any>(update, {
      id: 'ipset-3',
      input: { name: 'IPSET-2', addresses: ['10.0.0.1'] },
    });
    expect(answer.data?.updateIpSet).toMatchObject({ description: 'web tier addresses' });
    answer = await stack.gql<any>(update, {
      id: 'ipset-3',
      input: { name: 'IPSET-2', addresses: ['10.0.0.1'], description: null },
    });
    expect(answer.data?.updateIpSet).toMatchObject({ description: '' });
  });

  it('answers CONFLICT with the manager error when the revision moved on', async () => {
    stack.nsx.faults.inject({
      fault: {
        kind: 'status',
        status: 409,
        body: errorXml('101', 'Concurrent object access error.'),
      },
      method: 'PUT',
    });
    const answer = await stack.gql<any>(update, {
      id: 'ipset-3',
      input: { name: 'x', addresses: ['10.0.0.1'] },
    });
    expect(answer.data).toBeNull();
    expect(answer.errors?.[0]?.extensions).toEqual({
      code: 'CONFLICT',
      upstream: {
        service: 'nsx',
        status: 409,
        code: '101',
        message: 'Concurrent object access error.',
      },
    });
  });

  it('answers NOT_FOUND for an unknown IP set, without a PUT', async () => {
    const answer = await stack.gql<any>(update, {
      id: 'ipset-99',
      input: { name: 'x', addresses: ['10.0.0.1'] },
    });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('NOT_FOUND');
    expect(calls(stack.nsx)).toEqual(['GET /api/2.0/services/ipset/ipset-99']);
  });
});

describe('deleteIpSet', () => {
  it('deletes with force=false by default', async () => {
    const answer = await stack.gql<any>(`mutation { deleteIpSet(id: "ipset-4") { id deleted } }`);
    expect(answer.data?.deleteIpSet).toEqual({ id: 'ipset-4', deleted: true });
    expect(calls(stack.nsx)).toEqual(['DELETE /api/2.0/services/ipset/ipset-4?force=false']);
    expect(stack.nsx.state.ipSets.map((s) => s.objectId)).not.toContain('ipset-4');
  });

  it('answers BAD_USER_INPUT with the refusal to delete a set a firewall rule uses, and deletes it with force', async () => {
    const refused = await stack.gql<any>(`mutation { deleteIpSet(id: "ipset-3") { id } }`);
    expect(refused.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: {
        service: 'nsx',
        status: 400,
        code: '220',
        message:
          'ipset-3 is in use by firewall rule 1004 of dvportgroup-63; delete it with force=true.',
      },
    });
    const forced = await stack.gql<any>(
      `mutation { deleteIpSet(id: "ipset-3", force: true) { id deleted } }`,
    );
    expect(forced.data?.deleteIpSet).toEqual({ id: 'ipset-3', deleted: true });
    expect(calls(stack.nsx)).toEqual([
      'DELETE /api/2.0/services/ipset/ipset-3?force=false',
      'DELETE /api/2.0/services/ipset/ipset-3?force=true',
    ]);
  });

  it('answers NOT_FOUND when the set is already gone', async () => {
    const answer = await stack.gql<any>(`mutation { deleteIpSet(id: "ipset-99") { id } }`);
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('NOT_FOUND');
  });
});
