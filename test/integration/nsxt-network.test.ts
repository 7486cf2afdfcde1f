/**
 * The network schema over an NSX-T manager's Policy API: the gateway against
 * the NSX-T simulator on loopback, through GraphQL (yoga.fetch).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNsxtSimulator, type NsxtSimulator } from '../../simulators/nsx/t/index.ts';
import { gatewayOnNsxt as gatewayOn } from '../helpers/nsxt-stack.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

function calls(sim: NsxtSimulator): string[] {
  return sim.requests.map((r) => {
    const query = r.query.toString();
    return `${r.method} ${r.rawPath}${query === '' ? '' : `?${query}`}`;
  });
}

const sectionQuery = `query ($id: ID!) {
  firewallSection(id: $id) { id name layer generationNumber rules { id name action sources destinations services } }
}`;
const addRule = `mutation ($id: ID!, $rule: DistributedFirewallRuleInput!) {
  addFirewallSectionRule(sectionId: $id, rule: $rule) { id generationNumber rules { id name } }
}`;

describe('NSX-T: the generation, found by asking', () => {
  let sim: NsxtSimulator;
  let stack: Stack;
  beforeAll(async () => {
    sim = await startNsxtSimulator();
  });
  afterEach(async () => {
    await stack.close();
    sim.reset();
  });
  afterAll(() => sim.close());

  it('asks GET /api/v1/node/version once when NSX_API is unset, then speaks the Policy API', async () => {
    stack = await gatewayOn(sim, undefined);
    const first = await stack.gql('{ ipSets { id name addresses revision } }');
    expect(first.errors).toBeUndefined();
    expect(first.data?.['ipSets']).toContainEqual({
      id: 'web-servers',
      name: 'Web servers',
      addresses: ['10.0.1.10', '10.0.1.11'],
      revision: 0,
    });
    await stack.gql('{ services { id } }');
    expect(calls(sim)).toEqual([
      'GET /api/v1/node/version',
      'GET /policy/api/v1/infra/domains/default/groups',
      'GET /policy/api/v1/infra/services',
    ]);
    expect(sim.requests[0]?.headers['authorization']).toMatch(/^Basic /);
  });

  it('never asks when NSX_API=t', async () => {
    stack = await gatewayOn(sim, 't');
    const answer = await stack.gql('{ service(id: "app-8443") { id protocol ports } }');
    expect(answer.data?.['service']).toEqual({
      id: 'app-8443',
      protocol: 'TCP',
      ports: '8443,9000-9010',
    });
    expect(calls(sim)).toEqual(['GET /policy/api/v1/infra/services/app-8443']);
  });
});

describe('NSX-v: the generation, found by asking', () => {
  it('picks NSX-v when the manager answers 404 to the node version', async () => {
    const stack = await startStack({
      configure: (config) => ({ ...config, nsx: { ...config.nsx, api: undefined } }),
    });
    try {
      const answer = await stack.gql('{ ipSets { id } }');
      expect(answer.errors).toBeUndefined();
      const paths = stack.nsx.requests.map((r) => `${r.method} ${r.rawPath}`);
      expect(paths).toEqual([
        'GET /api/v1/node/version',
        'GET /api/2.0/services/ipset/scope/globalroot-0',
      ]);
    } finally {
      await stack.close();
    }
  });
});

describe('NSX-T: the network types', () => {
  let sim: NsxtSimulator;
  let stack: Stack;
  beforeAll(async () => {
    sim = await startNsxtSimulator();
    stack = await gatewayOn(sim, 't');
  });
  afterEach(() => sim.reset());
  afterAll(async () => {
    await stack.close();
    await sim.close();
  });

  it('creates, updates and deletes an IP set as a group with an IPAddressExpression', async () => {
    const created = await stack.gql(
      `mutation { createIpSet(input: { name: "lab", description: "the lab", addresses: ["10.9.0.0/24", "10.9.1.1"] }) { id name description addresses revision } }`,
    );
    expect(created.errors).toBeUndefined();
    const ipSet = created.data?.['createIpSet'] as { id: string };
    expect(created.data?.['createIpSet']).toMatchObject({
      name: 'lab',
      description: 'the lab',
      addresses: ['10.9.0.0/24', '10.9.1.1'],
      revision: 0,
    });
    const stored = sim.object(`/infra/domains/default/groups/${ipSet.id}`);
    expect(stored?.['expression']).toEqual([
      expect.objectContaining({
        resource_type: 'IPAddressExpression',
        ip_addresses: ['10.9.0.0/24', '10.9.1.1'],
      }),
    ]);

    const updated = await stack.gql(
      `mutation ($id: ID!) { updateIpSet(id: $id, input: { name: "lab2", addresses: ["10.9.2.2"] }) { id name description addresses revision } }`,
      { id: ipSet.id },
    );
    expect(updated.errors).toBeUndefined();
    expect(updated.data?.['updateIpSet']).toEqual({
      id: ipSet.id,
      name: 'lab2',
      description: 'the lab',
      addresses: ['10.9.2.2'],
      revision: 1,
    });
    const put = sim.requests.findLast((r) => r.method === 'PUT' && r.rawPath.endsWith(ipSet.id));
    expect(JSON.parse(put?.body.toString('utf8') ?? '{}')).toMatchObject({ _revision: 0 });

    const deleted = await stack.gql(`mutation ($id: ID!) { deleteIpSet(id: $id) { id deleted } }`, {
      id: ipSet.id,
    });
    expect(deleted.data?.['deleteIpSet']).toEqual({ id: ipSet.id, deleted: true });
    expect(sim.object(`/infra/domains/default/groups/${ipSet.id}`)).toBeUndefined();
    const gone = await stack.gql(`query ($id: ID!) { ipSet(id: $id) { id } }`, { id: ipSet.id });
    expect(gone.data?.['ipSet']).toBeNull();
  });

  it('creates, updates and deletes a service as an L4PortSetServiceEntry', async () => {
    const created = await stack.gql(
      `mutation { createService(input: { name: "web-alt", protocol: "tcp", ports: "8080,8443-8445", sourcePorts: "1024-65535" }) { id name protocol ports sourcePorts } }`,
    );
    expect(created.errors).toBeUndefined();
    const service = created.data?.['createService'] as { id: string };
    expect(created.data?.['createService']).toMatchObject({
      name: 'web-alt',
      protocol: 'TCP',
      ports: '8080,8443-8445',
      sourcePorts: '1024-65535',
    });
    expect(sim.object(`/infra/services/${service.id}`)?.['service_entries']).toEqual([
      expect.objectContaining({
        resource_type: 'L4PortSetServiceEntry',
        l4_protocol: 'TCP',
        destination_ports: ['8080', '8443-8445'],
        source_ports: ['1024-65535'],
      }),
    ]);
    const updated = await stack.gql(
      `mutation ($id: ID!) { updateService(id: $id, input: { name: "web-alt", protocol: "UDP", ports: "53" }) { id protocol ports sourcePorts revision } }`,
      { id: service.id },
    );
    expect(updated.errors).toBeUndefined();
    expect(updated.data?.['updateService']).toEqual({
      id: service.id,
      protocol: 'UDP',
      ports: '53',
      sourcePorts: '1024-65535',
      revision: 1,
    });
    const deleted = await stack.gql(`mutation ($id: ID!) { deleteService(id: $id) { deleted } }`, {
      id: service.id,
    });
    expect(deleted.data?.['deleteService']).toEqual({ deleted: true });
    expect(sim.object(`/infra/services/${service.id}`)).toBeUndefined();
  });

  it('refuses a service protocol an L4 port set cannot carry, with NOT_SUPPORTED and no call', async () => {
    sim.requests.length = 0;
    const answer = await stack.gql(
      `mutation { createService(input: { name: "ping", protocol: "ICMP" }) { id } }`,
    );
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_SUPPORTED',
      generation: 'NSX-T',
    });
    expect(sim.requests).toEqual([]);
  });

  it('answers a security policy as a section, its _revision the generation number', async () => {
    const answer = await stack.gql(sectionQuery, { id: 'app-tier' });
    expect(answer.errors).toBeUndefined();
    const section = answer.data?.['firewallSection'] as Record<string, any>;
    expect(section).toMatchObject({ id: 'app-tier', name: 'App tier', layer: 'LAYER3' });
    expect(section['rules'].map((r: { id: string }) => r.id)).toEqual([
      'allow-web',
      'allow-db',
      'drop-rest',
    ]);
    expect(section['rules'][0]).toMatchObject({
      action: 'allow',
      sources: {
        '@excluded': 'false',
        source: { type: 'Group', value: '/infra/domains/default/groups/web-servers' },
      },
      destinations: {
        '@excluded': 'false',
        destination: { type: 'Group', value: '/infra/domains/default/groups/app-servers' },
      },
    });
    expect(section['rules'][2]).toMatchObject({ action: 'deny', sources: null, services: null });
    const dfw = await stack.gql('{ distributedFirewall { sections { id layer } } }');
    expect(dfw.data?.['distributedFirewall']).toEqual({
      sections: [{ id: 'app-tier', layer: 'LAYER3' }],
    });
  });

  it('adds a rule at the top with the policy _revision, ids of IP sets and services as paths', async () => {
    const before = await stack.gql(sectionQuery, { id: 'app-tier' });
    const revision = (before.data?.['firewallSection'] as { generationNumber: string })
      .generationNumber;
    const added = await stack.gql(addRule, {
      id: 'app-tier',
      rule: {
        name: 'ops',
        action: 'deny',
        sources: {
          source: [{ type: 'IPSet', value: 'web-servers' }],
        },
        services: { service: [{ type: 'Application', value: 'SSH' }] },
      },
    });
    expect(added.errors, JSON.stringify(added.errors)).toBeUndefined();
    const section = added.data?.['addFirewallSectionRule'] as { rules: Array<{ name: string }> };
    expect(section.rules.map((r) => r.name)).toEqual([
      'ops',
      'Allow web to app',
      'Allow app to db',
      'Drop the rest',
    ]);
    const put = sim.requests.find((r) => r.method === 'PUT');
    const body = JSON.parse(put?.body.toString('utf8') ?? '{}') as Record<string, any>;
    expect(body['_revision']).toBe(Number(revision));
    expect(body['rules'][0]).toMatchObject({
      action: 'DROP',
      source_groups: ['/infra/domains/default/groups/web-servers'],
      services: ['/infra/services/SSH'],
    });
  });

  it("answers an IP set's policy path, which a rule's sources take as it is", async () => {
    const read = await stack.gql(
      '{ ipSets { id policyPath } ipSet(id: "web-servers") { policyPath } }',
    );
    expect(read.errors).toBeUndefined();
    const path = '/infra/domains/default/groups/web-servers';
    expect(read.data?.['ipSets']).toContainEqual({ id: 'web-servers', policyPath: path });
    expect(read.data?.['ipSet']).toEqual({ policyPath: path });
    const added = await stack.gql(addRule, {
      id: 'app-tier',
      rule: { name: 'by path', action: 'allow', sources: { source: [{ value: path }] } },
    });
    expect(added.errors, JSON.stringify(added.errors)).toBeUndefined();
    const put = sim.requests.find((r) => r.method === 'PUT');
    const body = JSON.parse(put?.body.toString('utf8') ?? '{}') as Record<string, any>;
    expect(body['rules'][0]).toMatchObject({ source_groups: [path] });
  });

  it('removes one rule and keeps the others', async () => {
    const removed = await stack.gql(
      `mutation { removeFirewallSectionRule(sectionId: "app-tier", ruleId: "allow-db") { rules { id } } }`,
    );
    expect(removed.errors).toBeUndefined();
    expect(removed.data?.['removeFirewallSectionRule']).toEqual({
      rules: [{ id: 'allow-web' }, { id: 'drop-rest' }],
    });
  });

  it('answers the Tier-1 gateways where the schema has edges', async () => {
    const answer = await stack.gql('{ edges { id name type status datacenterName } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['edges']).toEqual([
      { id: 't1-web', name: 'T1 web', type: 'tier1', status: null, datacenterName: null },
      { id: 't1-isolated', name: 'T1 isolated', type: 'tier1', status: null, datacenterName: null },
    ]);
  });

  it('answers NOT_SUPPORTED for forceSyncEdge and the application firewall, and null for its query, without a call', async () => {
    sim.requests.length = 0;
    const sync = await stack.gql('mutation { forceSyncEdge(edgeId: "t1-web") { accepted } }');
    expect(sync.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_SUPPORTED',
      generation: 'NSX-T',
    });
    const add = await stack.gql(
      'mutation { addApplicationFirewallRule(portGroupId: "dvportgroup-1", rule: { action: "allow" }) { contextId } }',
    );
    expect(add.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_SUPPORTED' });
    const read = await stack.gql(
      '{ applicationFirewall(portGroupId: "dvportgroup-1") { contextId } }',
    );
    expect(read.errors).toBeUndefined();
    expect(read.data?.['applicationFirewall']).toBeNull();
    expect(sim.requests).toEqual([]);
  });

  it('maps an NSX-T error body to extensions.upstream', async () => {
    const answer = await stack.gql(`mutation { deleteService(id: "HTTP") { deleted } }`);
    const extensions = answer.errors?.[0]?.extensions as Record<string, any> | undefined;
    expect(extensions?.['upstream']).toMatchObject({ service: 'nsx' });
    expect(typeof extensions?.['upstream']?.['code']).toBe('string');
    expect(typeof extensions?.['upstream']?.['message']).toBe('string');
  });
});

describe('NSX-T: concurrent rule additions', () => {
  it('loses none of 20 additions through two gateways, the conflicts re-read and retried', async () => {
    const sim = await startNsxtSimulator();
    const [a, b] = await Promise.all([gatewayOn(sim, 't'), gatewayOn(sim, 't')]);
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? a : b).gql(addRule, {
            id: 'app-tier',
            rule: { name: `concurrent-${i}`, action: 'allow' },
          }),
        ),
      );
      for (const answer of answers) expect(answer.errors).toBeUndefined();
      expect(sim.counters.conflicts.length).toBeGreaterThan(0);
      const after = await a.gql(sectionQuery, { id: 'app-tier' });
      const names = (
        after.data?.['firewallSection'] as { rules: Array<{ name: string }> }
      ).rules.map((r) => r.name);
      for (let i = 0; i < 20; i++) expect(names).toContain(`concurrent-${i}`);
      expect(names).toHaveLength(23);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await sim.close();
    }
  });
});
