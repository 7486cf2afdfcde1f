import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { basic, bodyOf, calls } from '../helpers/nsx.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  // Set explicitly: these tests count every call, and discovery adds one (see 'the edge API version').
  stack = await startStack({ env: { NSX_EDGE_API_VERSION: '3.0' } });
});
afterAll(async () => {
  await stack.close();
});
beforeEach(() => {
  stack.nsx.reset();
});

const add = `mutation ($edge: ID!, $input: VirtualServerInput!) {
  addVirtualServer(edgeId: $edge, input: $input) {
    id name description enabled ipAddress protocol port connectionLimit connectionRateLimit applicationProfileId defaultPoolId
  }
}`;

const input = {
  name: 'web <vip> & "α"',
  description: 'front door',
  ipAddress: '10.117.35.172',
  protocol: 'HTTPS',
  port: '443,6000-7000',
  connectionLimit: 123,
  connectionRateLimit: 0,
  applicationProfileId: 'applicationProfile-1',
  defaultPoolId: 'pool-1',
  accelerationEnabled: true,
};

describe('addVirtualServer', () => {
  it('posts to the plural virtualservers path under the configured edge API version (3.0)', async () => {
    const answer = await stack.gql<any>(add, { edge: 'edge-1', input });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.addVirtualServer).toEqual({
      id: 'virtualServer-2',
      name: 'web <vip> & "α"',
      description: 'front door',
      enabled: true,
      ipAddress: '10.117.35.172',
      protocol: 'HTTPS',
      port: '443,6000-7000',
      connectionLimit: 123,
      connectionRateLimit: 0,
      applicationProfileId: 'applicationProfile-1',
      defaultPoolId: 'pool-1',
    });
    expect(calls(stack.nsx)).toEqual([
      'POST /api/3.0/edges/edge-1/loadbalancer/config/virtualservers',
    ]);
    const post = stack.nsx.requests[0];
    expect(post?.headers['authorization']).toBe(basic(stack.nsx));
    expect(post?.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(bodyOf(post)).toEqual({
      virtualServer: {
        name: 'web <vip> & "α"',
        description: 'front door',
        enabled: 'true',
        ipAddress: '10.117.35.172',
        protocol: 'https',
        port: '443,6000-7000',
        connectionLimit: '123',
        connectionRateLimit: '0',
        applicationProfileId: 'applicationProfile-1',
        defaultPoolId: 'pool-1',
        accelerationEnabled: 'true',
      },
    });
    expect(stack.nsx.state.edges[0]?.virtualServers).toHaveLength(2);
  });

  it('answers NOT_FOUND for an unknown edge', async () => {
    const answer = await stack.gql<any>(add, { edge: 'edge-9', input });
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { service: 'nsx', status: 404, code: '202' },
    });
  });

  it('answers a null id when the manager gives no Location', async () => {
    stack.nsx.switches.omitLocation = true;
    const answer = await stack.gql<any>(add, { edge: 'edge-1', input });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.addVirtualServer).toMatchObject({ id: null, name: input.name });
  });

  it.each([
    ['an unsafe edge id', 'edge-1/../x', input],
    ['a bad IP address', 'edge-1', { ...input, ipAddress: '10.117.35' }],
    ['a bad protocol', 'edge-1', { ...input, protocol: 'SMTP' }],
    ['a bad port list', 'edge-1', { ...input, port: '443-' }],
    ['an empty name', 'edge-1', { ...input, name: '' }],
  ])('refuses %s before any call', async (_what, edge, value) => {
    const answer = await stack.gql<any>(add, { edge, input: value });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(stack.nsx.requests).toHaveLength(0);
  });
});

describe('forceSyncEdge', () => {
  it('POSTs ?action=forcesync with no body but Content-Type application/xml (the documented GET is wrong)', async () => {
    const answer = await stack.gql<any>(
      `mutation { forceSyncEdge(edgeId: "edge-1") { edgeId accepted } }`,
    );
    expect(answer.data?.forceSyncEdge).toEqual({ edgeId: 'edge-1', accepted: true });
    expect(calls(stack.nsx)).toEqual(['POST /api/3.0/edges/edge-1?action=forcesync']);
    const post = stack.nsx.requests[0];
    expect(post?.body.length).toBe(0);
    expect(post?.headers['content-type']).toBe('application/xml');
    expect(post?.headers['authorization']).toBe(basic(stack.nsx));
    expect(stack.nsx.state.edges[0]?.forceSyncs).toBe(1);
  });

  it('accepts a 200 answer as well as a 204', async () => {
    stack.nsx.switches.forceSyncStatus = 200;
    const answer = await stack.gql<any>(
      `mutation { forceSyncEdge(edgeId: "edge-1") { accepted } }`,
    );
    expect(answer.data?.forceSyncEdge).toEqual({ accepted: true });
  });

  it('answers NOT_FOUND for an unknown edge', async () => {
    const answer = await stack.gql<any>(
      `mutation { forceSyncEdge(edgeId: "edge-404") { accepted } }`,
    );
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { status: 404 },
    });
  });
});

describe('the edge API version', () => {
  it('puts NSX_EDGE_API_VERSION into every edge path', async () => {
    const nsx4 = await startStack({ env: { NSX_EDGE_API_VERSION: '4.0' } });
    try {
      await nsx4.gql<any>(add, { edge: 'edge-1', input });
      await nsx4.gql<any>(`mutation { forceSyncEdge(edgeId: "edge-1") { accepted } }`);
      expect(calls(nsx4.nsx)).toEqual([
        'POST /api/4.0/edges/edge-1/loadbalancer/config/virtualservers',
        'POST /api/4.0/edges/edge-1?action=forcesync',
      ]);
    } finally {
      await nsx4.close();
    }
  });
});
