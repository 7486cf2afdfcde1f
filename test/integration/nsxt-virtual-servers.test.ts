/**
 * An edge's load balancer over the NSX-T Policy API: a Tier-1 gateway's
 * virtual servers are the LBVirtualServers of the LBServices attached to it.
 * The gateway against the NSX-T simulator on loopback, through GraphQL.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NsxtSimulator } from '../../simulators/nsx/t/index.ts';
import { startNsxtStack } from '../helpers/nsxt-stack.ts';
import type { Stack } from '../helpers/stack.ts';

const fields = `id name description enabled ipAddress protocol port connectionLimit connectionRateLimit applicationProfileId defaultPoolId`;
const edgeQuery = `query ($id: ID!) { edge(id: $id) { id virtualServers { ${fields} } } }`;
const addMutation = `mutation ($edgeId: ID!, $input: VirtualServerInput!) {
  addVirtualServer(edgeId: $edgeId, input: $input) { ${fields} }
}`;
const updateMutation = `mutation ($edgeId: ID!, $id: ID!, $input: VirtualServerInput!) {
  updateVirtualServer(edgeId: $edgeId, id: $id, input: $input) { ${fields} }
}`;
const deleteMutation = `mutation ($edgeId: ID!, $id: ID!) {
  deleteVirtualServer(edgeId: $edgeId, id: $id) { id deleted }
}`;

let sim: NsxtSimulator;
let stack: Stack;

function calls(): string[] {
  return sim.requests.map((r) => `${r.method} ${r.path}`);
}

/** The JSON body of the one request of `method` the simulator received. */
function sentBody(method: string): Record<string, unknown> {
  const sent = sim.requests.filter((r) => r.method === method);
  expect(sent).toHaveLength(1);
  return JSON.parse(sent[0]?.body.toString('utf8') ?? '') as Record<string, unknown>;
}

let close: () => Promise<void>;

beforeAll(async () => {
  ({ sim, stack, close } = await startNsxtStack());
});
beforeEach(() => sim.reset());
afterAll(() => close());

describe('NSX-T: an edge’s virtual servers', () => {
  it('lists the virtual servers of a Tier-1’s LB service, the protocol from the profile’s type', async () => {
    const answer = await stack.gql(edgeQuery, { id: 't1-web' });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['edge']).toEqual({
      id: 't1-web',
      virtualServers: [
        {
          id: 'web-vip',
          name: 'Web VIP',
          description: null,
          enabled: true,
          ipAddress: '10.0.9.10',
          protocol: 'TCP',
          port: '443',
          connectionLimit: null,
          connectionRateLimit: null,
          applicationProfileId: 'default-tcp-lb-app-profile',
          defaultPoolId: 'web-pool',
        },
      ],
    });
    expect(calls()).toEqual(
      expect.arrayContaining([
        'GET /policy/api/v1/infra/tier-1s/t1-web',
        'GET /policy/api/v1/infra/lb-services',
        'GET /policy/api/v1/infra/lb-virtual-servers',
      ]),
    );
    // the default profiles are known by path: none is read
    expect(calls().filter((c) => c.includes('lb-app-profiles'))).toEqual([]);
  });

  it('lists none on a Tier-1 without an LB service', async () => {
    const answer = await stack.gql(edgeQuery, { id: 't1-isolated' });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['edge']).toEqual({ id: 't1-isolated', virtualServers: [] });
  });

  it('reads a profile that is not a default one to learn the protocol', async () => {
    sim.state.appProfiles.set('my-udp', {
      ...sim.object('/infra/lb-app-profiles/default-udp-lb-app-profile'),
      id: 'my-udp',
      path: '/infra/lb-app-profiles/my-udp',
      relative_path: 'my-udp',
      display_name: 'my-udp',
      _system_owned: false,
    });
    sim.touch('/infra/lb-virtual-servers/web-vip', {
      application_profile_path: '/infra/lb-app-profiles/my-udp',
    });
    const answer = await stack.gql(edgeQuery, { id: 't1-web' });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['edge']).toMatchObject({
      virtualServers: [{ id: 'web-vip', protocol: 'UDP', applicationProfileId: 'my-udp' }],
    });
    expect(calls()).toContain('GET /policy/api/v1/infra/lb-app-profiles/my-udp');
  });

  it('adds a virtual server on the Tier-1’s LB service with the protocol’s default profile', async () => {
    const answer = await stack.gql(addMutation, {
      edgeId: 't1-web',
      input: {
        name: 'api',
        description: 'the API',
        ipAddress: '10.0.9.20',
        protocol: 'HTTP',
        port: '80,8080-8090',
        connectionLimit: 100,
        connectionRateLimit: 10,
        defaultPoolId: 'api-pool',
      },
    });
    expect(answer.errors).toBeUndefined();
    const added = answer.data?.['addVirtualServer'] as { id: string };
    expect(added).toEqual({
      id: expect.stringMatching(/^virtualServer-[0-9a-f-]{36}$/) as string,
      name: 'api',
      description: 'the API',
      enabled: true,
      ipAddress: '10.0.9.20',
      protocol: 'HTTP',
      port: '80,8080-8090',
      connectionLimit: 100,
      connectionRateLimit: 10,
      applicationProfileId: 'default-http-lb-app-profile',
      defaultPoolId: 'api-pool',
    });
    expect(calls()).toEqual([
      'GET /policy/api/v1/infra/lb-services',
      `PUT /policy/api/v1/infra/lb-virtual-servers/${added.id}`,
    ]);
    expect(sentBody('PUT')).toEqual({
      resource_type: 'LBVirtualServer',
      lb_service_path: '/infra/lb-services/web-lb',
      display_name: 'api',
      description: 'the API',
      enabled: true,
      ip_address: '10.0.9.20',
      ports: ['80', '8080-8090'],
      application_profile_path: '/infra/lb-app-profiles/default-http-lb-app-profile',
      pool_path: '/infra/lb-pools/api-pool',
      max_concurrent_connections: 100,
      max_new_connection_rate: 10,
    });
    expect(sim.object(`/infra/lb-virtual-servers/${added.id}`)).toMatchObject({
      _revision: 0,
      lb_service_path: '/infra/lb-services/web-lb',
    });
    const listed = await stack.gql(edgeQuery, { id: 't1-web' });
    expect(
      (listed.data?.['edge'] as { virtualServers: Array<{ id: string }> }).virtualServers.map(
        (v) => v.id,
      ),
    ).toEqual(['web-vip', added.id]);
    expect(sim.counters.refusals).toEqual([]);
  });

  it('adds with the profile the input names, and answers NOT_FOUND on a Tier-1 without an LB service', async () => {
    const named = await stack.gql(addMutation, {
      edgeId: 't1-web',
      input: {
        name: 'dns',
        ipAddress: '10.0.9.21',
        protocol: 'UDP',
        port: '53',
        connectionLimit: 0,
        applicationProfileId: 'default-udp-lb-app-profile',
      },
    });
    expect(named.errors).toBeUndefined();
    expect(named.data?.['addVirtualServer']).toMatchObject({
      protocol: 'UDP',
      applicationProfileId: 'default-udp-lb-app-profile',
      connectionLimit: null,
    });
    // 0 is the schema's "unlimited": no limit is sent (NSX-T's limits start at 1)
    expect(sentBody('PUT')).not.toHaveProperty('max_concurrent_connections');
    sim.requests.length = 0;
    const nowhere = await stack.gql(addMutation, {
      edgeId: 't1-isolated',
      input: { name: 'x', ipAddress: '10.0.9.22', protocol: 'TCP', port: '22' },
    });
    expect(nowhere.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
    expect(calls()).toEqual(['GET /policy/api/v1/infra/lb-services']);
  });

  it('updates a virtual server over the one read, with its _revision, keeping what the input does not carry', async () => {
    sim.touch('/infra/lb-virtual-servers/web-vip'); // _revision 1
    const answer = await stack.gql(updateMutation, {
      edgeId: 't1-web',
      id: 'web-vip',
      input: { name: 'Web VIP 2', ipAddress: '10.0.9.11', protocol: 'TCP', port: '443,8443' },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['updateVirtualServer']).toMatchObject({
      id: 'web-vip',
      name: 'Web VIP 2',
      ipAddress: '10.0.9.11',
      protocol: 'TCP',
      port: '443,8443',
      applicationProfileId: 'default-tcp-lb-app-profile',
      defaultPoolId: 'web-pool',
    });
    const body = sentBody('PUT');
    expect(body).toMatchObject({
      _revision: 1,
      display_name: 'Web VIP 2',
      ip_address: '10.0.9.11',
      ports: ['443', '8443'],
      lb_service_path: '/infra/lb-services/web-lb',
      application_profile_path: '/infra/lb-app-profiles/default-tcp-lb-app-profile',
      pool_path: '/infra/lb-pools/web-pool',
    });
    expect(sim.object('/infra/lb-virtual-servers/web-vip')).toMatchObject({
      _revision: 2,
      display_name: 'Web VIP 2',
    });
    expect(sim.counters.conflicts).toEqual([]);
  });

  it('switches to the new protocol’s default profile when the protocol changes', async () => {
    const answer = await stack.gql(updateMutation, {
      edgeId: 't1-web',
      id: 'web-vip',
      input: { name: 'Web VIP', ipAddress: '10.0.9.10', protocol: 'HTTP', port: '80' },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['updateVirtualServer']).toMatchObject({
      protocol: 'HTTP',
      applicationProfileId: 'default-http-lb-app-profile',
    });
    expect(sentBody('PUT')['application_profile_path']).toBe(
      '/infra/lb-app-profiles/default-http-lb-app-profile',
    );
  });

  it('deletes a virtual server of the Tier-1, and answers NOT_FOUND for one of another Tier-1', async () => {
    const elsewhere = await stack.gql(deleteMutation, { edgeId: 't1-isolated', id: 'web-vip' });
    expect(elsewhere.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
    expect(sim.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    const answer = await stack.gql(deleteMutation, { edgeId: 't1-web', id: 'web-vip' });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['deleteVirtualServer']).toEqual({ id: 'web-vip', deleted: true });
    expect(calls().filter((c) => c.startsWith('DELETE'))).toEqual([
      'DELETE /policy/api/v1/infra/lb-virtual-servers/web-vip',
    ]);
    expect(sim.object('/infra/lb-virtual-servers/web-vip')).toBeUndefined();
    const listed = await stack.gql(edgeQuery, { id: 't1-web' });
    expect(listed.data?.['edge']).toEqual({ id: 't1-web', virtualServers: [] });
  });

  it('refuses HTTPS on add and update with NOT_SUPPORTED naming NSX-T, and makes no call', async () => {
    const input = { name: 'tls', ipAddress: '10.0.9.30', protocol: 'HTTPS', port: '443' };
    const added = await stack.gql(addMutation, { edgeId: 't1-web', input });
    const updated = await stack.gql(updateMutation, { edgeId: 't1-web', id: 'web-vip', input });
    for (const answer of [added, updated]) {
      expect(answer.data).toBeNull();
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'NOT_SUPPORTED',
        generation: 'NSX-T',
      });
    }
    expect(sim.requests).toEqual([]);
    expect(sim.object('/infra/lb-virtual-servers/web-vip')).toMatchObject({ _revision: 0 });
  });

  it('leaves the simulator no request to refuse and no answer to fault', async () => {
    await stack.gql(edgeQuery, { id: 't1-web' });
    await stack.gql(updateMutation, {
      edgeId: 't1-web',
      id: 'web-vip',
      input: { name: 'v', ipAddress: 'fd00::10', protocol: 'TCP', port: '443', enabled: false },
    });
    expect(sim.counters.refusals).toEqual([]);
    expect(sim.counters.answerViolations).toEqual([]);
  });
});
