import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { kidText } from '../../simulators/nsx/v/sim-xml.ts';
import { bodyOf, calls } from '../helpers/nsx.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ nsx: { manager: 'nsx-v' }, env: { NSX_EDGE_API_VERSION: '4.0' } });
});
afterAll(async () => {
  await stack.close();
});
beforeEach(() => {
  stack.nsx.reset();
});

const vsPath = '/api/4.0/edges/edge-1/loadbalancer/config/virtualservers';

describe('edges', () => {
  it('lists every edge from the paged edge list, with its virtual servers', async () => {
    const answer = await stack.gql<any>(`{
      edges { id name type status datacenterName virtualServers { id name protocol port } }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.edges).toEqual([
      {
        id: 'edge-1',
        name: 'Edge-Services-01',
        type: 'gatewayServices',
        status: 'deployed',
        datacenterName: 'Datacenter Site A',
        virtualServers: [{ id: 'virtualServer-1', name: 'http_vip', protocol: 'HTTP', port: '80' }],
      },
      {
        id: 'edge-3',
        name: 'Perimeter-Gateway-01',
        type: 'gatewayServices',
        status: 'GREEN',
        datacenterName: 'Datacenter Site A',
        virtualServers: [],
      },
      {
        id: 'edge-5',
        name: 'Distributed-Router-01',
        type: 'distributedRouter',
        status: 'deployed',
        datacenterName: 'Datacenter Site A',
        virtualServers: [],
      },
    ]);
    expect(calls(stack.nsx)).toEqual([
      'GET /api/4.0/edges?startIndex=0&pageSize=1024',
      'GET /api/4.0/edges/edge-1/loadbalancer/config/virtualservers',
      'GET /api/4.0/edges/edge-3/loadbalancer/config/virtualservers',
      'GET /api/4.0/edges/edge-5/loadbalancer/config/virtualservers',
    ]);
  });

  it('follows the edge list page by page until it has the total', async () => {
    const { edges } = stack.nsx.state;
    const template = edges[0]!;
    for (let i = 0; i < 1100; i++) {
      edges.push({ ...template, id: `edge-x${i}`, summary: { ...template.summary } });
    }
    const answer = await stack.gql<any>(`{ edges { id } }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.edges).toHaveLength(1103);
    expect(calls(stack.nsx)).toEqual([
      'GET /api/4.0/edges?startIndex=0&pageSize=1024',
      'GET /api/4.0/edges?startIndex=1024&pageSize=1024',
    ]);
  });

  it('reads one edge from its summary, and answers null for an unknown one', async () => {
    const answer = await stack.gql<any>(
      `{ edge(id: "edge-3") { id name status } missing: edge(id: "edge-9") { id } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      edge: { id: 'edge-3', name: 'Perimeter-Gateway-01', status: 'GREEN' },
      missing: null,
    });
    expect(calls(stack.nsx)).toEqual([
      'GET /api/4.0/edges/edge-3/summary',
      'GET /api/4.0/edges/edge-9/summary',
    ]);
  });
});

describe('updateVirtualServer and deleteVirtualServer', () => {
  const update = `mutation ($input: VirtualServerInput!) {
    updateVirtualServer(edgeId: "edge-1", id: "virtualServer-1", input: $input) {
      id name description enabled ipAddress protocol port connectionLimit applicationProfileId
    }
  }`;

  it('writes the input over the current virtual server, keeping what the gateway does not model', async () => {
    const answer = await stack.gql<any>(update, {
      input: {
        name: 'web',
        ipAddress: '10.117.35.180',
        protocol: 'HTTPS',
        port: '443',
        enabled: false,
      },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.updateVirtualServer).toEqual({
      id: 'virtualServer-1',
      name: 'web',
      description: 'http virtualServer',
      enabled: false,
      ipAddress: '10.117.35.180',
      protocol: 'HTTPS',
      port: '443',
      connectionLimit: 123,
      applicationProfileId: 'applicationProfile-1',
    });
    expect(calls(stack.nsx)).toEqual([
      `GET ${vsPath}/virtualServer-1`,
      `PUT ${vsPath}/virtualServer-1`,
    ]);
    const put = stack.nsx.requests[1];
    expect(put?.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(bodyOf(put)['virtualServer']).toMatchObject({
      virtualServerId: 'virtualServer-1',
      name: 'web',
      protocol: 'https',
      enableServiceInsertion: 'false',
      vendorProfile: { vendorTemplateName: 'F5' },
    });
    const stored = stack.nsx.state.edges[0]?.virtualServers[0];
    expect(stored === undefined ? undefined : kidText(stored, 'name')).toBe('web');
  });

  it('refuses a bad input before any call, and answers NOT_FOUND for an unknown server', async () => {
    const bad = await stack.gql<any>(update, {
      input: { name: 'web', ipAddress: 'not-an-ip', protocol: 'HTTPS', port: '443' },
    });
    expect(bad.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(stack.nsx.requests).toHaveLength(0);
    const unknown = await stack.gql<any>(
      `mutation { deleteVirtualServer(edgeId: "edge-1", id: "virtualServer-9") { deleted } }`,
    );
    expect(unknown.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { status: 404 },
    });
  });

  it('deletes a virtual server, and a later read in the same operation no longer sees it', async () => {
    const answer = await stack.gql<any>(`mutation {
      deleteVirtualServer(edgeId: "edge-1", id: "virtualServer-1") { id deleted }
    }`);
    expect(answer.data?.deleteVirtualServer).toEqual({ id: 'virtualServer-1', deleted: true });
    expect(calls(stack.nsx)).toEqual([`DELETE ${vsPath}/virtualServer-1`]);
    expect(stack.nsx.state.edges[0]?.virtualServers).toHaveLength(0);
  });
});

describe('the edge API version, discovered', () => {
  const forceSync = `mutation { forceSyncEdge(edgeId: "edge-1") { accepted } }`;

  it('asks an NSX-v 6.x manager once and then uses /api/4.0', async () => {
    const nsxv = await startStack({ nsx: { manager: 'nsx-v' } });
    try {
      expect((await nsxv.gql<any>(forceSync)).errors).toBeUndefined();
      expect((await nsxv.gql<any>(`{ edges { id } }`)).errors).toBeUndefined();
      expect(calls(nsxv.nsx)).toEqual([
        'GET /api/4.0/edges?startIndex=0&pageSize=1',
        'POST /api/4.0/edges/edge-1?action=forcesync',
        'GET /api/4.0/edges?startIndex=0&pageSize=1024',
      ]);
    } finally {
      await nsxv.close();
    }
  });

  it('falls back to /api/3.0 on a vCNS 5.x manager, which has no /api/4.0/edges', async () => {
    const vcns = await startStack({ nsx: { manager: 'vcns' } });
    try {
      expect((await vcns.gql<any>(forceSync)).errors).toBeUndefined();
      expect((await vcns.gql<any>(forceSync)).errors).toBeUndefined();
      expect(calls(vcns.nsx)).toEqual([
        'GET /api/4.0/edges?startIndex=0&pageSize=1',
        'POST /api/3.0/edges/edge-1?action=forcesync',
        'POST /api/3.0/edges/edge-1?action=forcesync',
      ]);
    } finally {
      await vcns.close();
    }
  });

  it('does not remember a failed probe, and never probes when NSX_EDGE_API_VERSION is set', async () => {
    const probing = await startStack({ nsx: { manager: 'nsx-v' } });
    const explicit = await startStack({
      nsx: { manager: 'vcns' },
      env: { NSX_EDGE_API_VERSION: '3.0' },
    });
    try {
      probing.nsx.faults.inject({
        fault: { kind: 'status', status: 500 },
        path: '/api/4.0/edges',
        times: 1,
      });
      const failed = await probing.gql<any>(forceSync);
      expect(failed.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_ERROR');
      expect((await probing.gql<any>(forceSync)).errors).toBeUndefined();
      expect(calls(probing.nsx).slice(-2)).toEqual([
        'GET /api/4.0/edges?startIndex=0&pageSize=1',
        'POST /api/4.0/edges/edge-1?action=forcesync',
      ]);
      expect((await explicit.gql<any>(forceSync)).errors).toBeUndefined();
      expect(calls(explicit.nsx)).toEqual(['POST /api/3.0/edges/edge-1?action=forcesync']);
    } finally {
      await Promise.all([probing.close(), explicit.close()]);
    }
  });
});
