import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startNsxtSimulator, type NsxtSimulator } from '../../simulators/nsx/t/index.ts';
import { specProblem } from '../../simulators/nsx/t/spec-check.ts';
import { startNsxSimulator } from '../../simulators/nsx/v/index.ts';

let sim: NsxtSimulator;
beforeAll(async () => {
  sim = await startNsxtSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

async function send(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; auth?: string | false } = {},
  target: { url: URL; username: string; password: string } = sim,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.auth !== false) {
    headers['authorization'] = options.auth ?? basic(target.username, target.password);
  }
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  Object.assign(headers, options.headers);
  const init: RequestInit = { method, headers };
  if (options.body !== undefined) {
    init.body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(new URL(path, target.url), init);
  const text = await response.text();
  let json: Record<string, unknown> = {};
  if (text !== '' && (response.headers.get('content-type') ?? '').includes('json')) {
    json = JSON.parse(text) as Record<string, unknown>;
  }
  return { status: response.status, headers: response.headers, text, json };
}

const policy = '/policy/api/v1/infra';
const groups = `${policy}/domains/default/groups`;
const policies = `${policy}/domains/default/security-policies`;
const rules = `${policies}/app-tier/rules`;

function expectApiError(answer: Answer, status: number, code?: number): void {
  expect(answer.status).toBe(status);
  expect(answer.json).toMatchObject({ error_code: expect.any(Number) as number });
  expect(typeof answer.json['error_message']).toBe('string');
  expect(typeof answer.json['module_name']).toBe('string');
  expect(typeof answer.json['httpStatus']).toBe('string');
  if (code !== undefined) expect(answer.json['error_code']).toBe(code);
}

describe('the NSX-T simulator: access', () => {
  it('refuses a call without Basic credentials or with wrong ones with 401 and the error body', async () => {
    expectApiError(await send('GET', groups, { auth: false }), 401);
    expectApiError(await send('GET', groups, { auth: basic('admin', 'nope') }), 401);
    expectApiError(await send('GET', '/api/v1/node/version', { auth: false }), 401);
  });

  it('answers the node version for detection, and the NSX-v simulator answers 404 there', async () => {
    const answer = await send('GET', '/api/v1/node/version');
    expect(answer.status).toBe(200);
    expect(answer.json['product_version']).toMatch(/^3\.2\./);
    expect(answer.json['node_version']).toBe(answer.json['product_version']);
    const nsxv = await startNsxSimulator();
    try {
      const other = await send('GET', '/api/v1/node/version', {}, nsxv);
      expect(other.status).toBe(404);
    } finally {
      await nsxv.close();
    }
  });

  it('answers 404 with the error body for an unknown path or id, and 405 for a method it lacks', async () => {
    expectApiError(await send('GET', `${policy}/nowhere`), 404);
    expectApiError(await send('GET', `${groups}/no-such-group`), 404);
    expectApiError(await send('GET', `${policy}/domains/other/groups`), 404);
    expectApiError(await send('POST', groups, { body: {} }), 405);
    expectApiError(await send('DELETE', `${policy}/tier-1s/t1-web`), 405);
  });

  it('takes JSON only: another media type is 415, broken JSON 400', async () => {
    const xml = await send('PATCH', `${groups}/g1`, {
      body: '<group/>',
      headers: { 'content-type': 'application/xml' },
    });
    expectApiError(xml, 415);
    expectApiError(await send('PATCH', `${groups}/g1`, { body: '{"display_name": ' }), 400);
  });
});

describe('the NSX-T simulator: lists', () => {
  it('pages with cursor and page_size, counting every result', async () => {
    const first = await send('GET', `${groups}?page_size=3`);
    expect(first.status).toBe(200);
    expect(first.json['result_count']).toBe(4);
    expect(first.json['results']).toHaveLength(3);
    const cursor = first.json['cursor'];
    expect(typeof cursor).toBe('string');
    const second = await send('GET', `${groups}?page_size=3&cursor=${String(cursor)}`);
    expect(second.json['results']).toHaveLength(1);
    expect(second.json['cursor']).toBeUndefined();
    const ids = [...(first.json['results'] as []), ...(second.json['results'] as [])].map(
      (g: { id: string }) => g.id,
    );
    expect(new Set(ids).size).toBe(4);
  });

  it('refuses a bad cursor or page size with 400', async () => {
    expectApiError(await send('GET', `${groups}?cursor=garbage`), 400);
    expectApiError(await send('GET', `${groups}?page_size=0`), 400);
    expectApiError(await send('GET', `${groups}?page_size=ten`), 400);
  });

  it('sorts by a field when asked and says so', async () => {
    const answer = await send('GET', `${policy}/services?sort_by=id&sort_ascending=false`);
    const ids = (answer.json['results'] as Array<{ id: string }>).map((s) => s.id);
    expect(ids).toEqual([...ids].sort((a, b) => b.localeCompare(a)));
    expect(answer.json).toMatchObject({ sort_by: 'id', sort_ascending: false });
  });
});

describe('the NSX-T simulator: groups', () => {
  it('creates a group of IP addresses with PATCH, reads it, replaces it with PUT', async () => {
    const body = {
      display_name: 'Batch hosts',
      expression: [
        { resource_type: 'IPAddressExpression', ip_addresses: ['192.0.2.1', '192.0.2.0/28'] },
      ],
    };
    const created = await send('PATCH', `${groups}/batch`, { body });
    expect(created.status).toBe(200);
    expect(created.text).toBe('');
    const read = await send('GET', `${groups}/batch`);
    expect(read.json).toMatchObject({
      id: 'batch',
      resource_type: 'Group',
      path: '/infra/domains/default/groups/batch',
      _revision: 0,
      expression: [{ ip_addresses: ['192.0.2.1', '192.0.2.0/28'] }],
    });
    const replaced = await send('PUT', `${groups}/batch`, {
      body: { ...read.json, display_name: 'Batch' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ display_name: 'Batch', _revision: 1 });
  });

  it('refuses addresses that are not addresses, or IPv4 mixed with IPv6 in one expression', async () => {
    const bad = (ips: string[]) =>
      send('PATCH', `${groups}/g`, {
        body: { expression: [{ resource_type: 'IPAddressExpression', ip_addresses: ips }] },
      });
    expectApiError(await bad(['10.0.0.300']), 400);
    expectApiError(await bad(['10.0.0.1', 'fd00::1']), 400);
    expectApiError(await bad([]), 400);
  });

  it('refuses a group in use by a rule, even with force=true on NSX 4', async () => {
    expectApiError(await send('DELETE', `${groups}/web-servers`), 400);
    const four = await startNsxtSimulator({ version: '4.1.2.0.0.22589037' });
    try {
      expectApiError(await send('DELETE', `${groups}/web-servers?force=true`, {}, four), 400);
    } finally {
      await four.close();
    }
  });

  it('deletes a group in use with force=true on NSX-T 3, and an unused one always', async () => {
    expect((await send('DELETE', `${groups}/web-servers?force=true`)).status).toBe(200);
    expect((await send('DELETE', `${groups}/ipv6-mgmt`)).status).toBe(200);
    expect((await send('GET', `${groups}/ipv6-mgmt`)).status).toBe(404);
    expect((await send('DELETE', `${groups}/ipv6-mgmt`)).status).toBe(200);
  });
});

describe('the NSX-T simulator: services', () => {
  it('creates an L4 port-set service and answers it on PUT', async () => {
    const answer = await send('PUT', `${policy}/services/web-alt`, {
      body: {
        display_name: 'Web alt',
        service_entries: [
          {
            resource_type: 'L4PortSetServiceEntry',
            display_name: 'tcp-8080',
            l4_protocol: 'TCP',
            destination_ports: ['8080', '8443-8444'],
          },
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      id: 'web-alt',
      _revision: 0,
      service_entries: [
        { id: 'tcp-8080', l4_protocol: 'TCP', destination_ports: ['8080', '8443-8444'] },
      ],
    });
  });

  it('refuses other protocols, bad ports and more than 15 port values', async () => {
    const entry = (fields: Record<string, unknown>) =>
      send('PATCH', `${policy}/services/s`, {
        body: {
          service_entries: [
            { resource_type: 'L4PortSetServiceEntry', l4_protocol: 'TCP', ...fields },
          ],
        },
      });
    expectApiError(await entry({ l4_protocol: 'SCTP' }), 400);
    expectApiError(await entry({ destination_ports: ['70000'] }), 400);
    expectApiError(await entry({ destination_ports: ['10-5'] }), 400);
    expectApiError(
      await entry({
        destination_ports: ['1-2', '3-4', '5-6', '7-8', '9-10', '11-12', '13-14', '15-16'],
      }),
      400,
    );
  });

  it('keeps system services unchangeable and services in use undeletable', async () => {
    const http = await send('GET', `${policy}/services/HTTP`);
    expect(http.json['_system_owned']).toBe(true);
    expectApiError(
      await send('PATCH', `${policy}/services/HTTP`, { body: { display_name: 'x' } }),
      400,
    );
    expectApiError(await send('PUT', `${policy}/services/HTTP`, { body: http.json }), 400);
    expectApiError(await send('DELETE', `${policy}/services/HTTP`), 400);
    expectApiError(await send('DELETE', `${policy}/services/app-8443`), 400);
  });
});

describe('the NSX-T simulator: the firewall', () => {
  it('answers a policy with its rules in sequence order, and the list with rule counts', async () => {
    const one = await send('GET', `${policies}/app-tier`);
    expect(one.json['rule_count']).toBe(3);
    expect((one.json['rules'] as Array<{ id: string }>).map((r) => r.id)).toEqual([
      'allow-web',
      'allow-db',
      'drop-rest',
    ]);
    const list = await send('GET', policies);
    expect(list.json['results']).toMatchObject([{ id: 'app-tier', rule_count: 3 }]);
    expect((list.json['results'] as Array<Record<string, unknown>>)[0]?.['rules']).toBeUndefined();
  });

  it('adds a rule with PUT, assigns a rule_id and moves _revision on every change', async () => {
    const created = await send('PUT', `${rules}/allow-ssh`, {
      body: {
        action: 'ALLOW',
        sequence_number: 15,
        source_groups: ['/infra/domains/default/groups/web-servers'],
        services: ['/infra/services/SSH'],
      },
    });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      _revision: 0,
      rule_id: 1004,
      destination_groups: ['ANY'],
    });
    await send('PATCH', `${rules}/allow-ssh`, { body: { logged: true } });
    const read = await send('GET', `${rules}/allow-ssh`);
    expect(read.json).toMatchObject({ _revision: 1, logged: true, rule_id: 1004 });
    const list = await send('GET', rules);
    expect((list.json['results'] as Array<{ id: string }>).map((r) => r.id)).toEqual([
      'allow-web',
      'allow-ssh',
      'allow-db',
      'drop-rest',
    ]);
  });

  it('answers 412 to a PUT with a stale _revision, and counts it', async () => {
    const read = await send('GET', `${rules}/allow-db`);
    sim.touch('/infra/domains/default/security-policies/app-tier/rules/allow-db');
    const stale = await send('PUT', `${rules}/allow-db`, { body: { ...read.json, notes: 'mine' } });
    expectApiError(stale, 412, 604);
    expect(stale.json['error_message']).toBe('The object was modified by somebody else.');
    expect(sim.counters.conflicts).toEqual([
      expect.objectContaining({ method: 'PUT', sent: 0, current: 1 }),
    ]);
    const again = await send('GET', `${rules}/allow-db`);
    const fresh = await send('PUT', `${rules}/allow-db`, {
      body: { ...again.json, notes: 'mine' },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.json).toMatchObject({ _revision: 2, notes: 'mine' });
  });

  it('answers 412 to a PUT of an existing object without _revision, and to a PATCH with a stale one', async () => {
    const { _revision, ...rest } = (await send('GET', `${rules}/allow-db`)).json;
    expect(_revision).toBe(0);
    expectApiError(await send('PUT', `${rules}/allow-db`, { body: rest }), 412);
    expectApiError(
      await send('PATCH', `${rules}/allow-db`, { body: { _revision: 7, logged: false } }),
      412,
    );
    expect((await send('PATCH', `${rules}/allow-db`, { body: { logged: false } })).status).toBe(
      200,
    );
    expect(sim.counters.conflicts).toHaveLength(2);
  });

  it('lets another client write first on the next N writes (foreignWrites)', async () => {
    sim.switches.foreignWrites = 2;
    const withoutRules = (json: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(json).filter(([key]) => key !== 'rules' && key !== 'rule_count'),
      );
    const read = await send('GET', `${policies}/app-tier`);
    const policyBody = withoutRules(read.json);
    expectApiError(await send('PUT', `${policies}/app-tier`, { body: policyBody }), 412);
    const second = await send('GET', `${policies}/app-tier`);
    expect(second.json['_revision']).toBe(1);
    expect(second.json['_last_modified_user']).toBe('admin');
    const secondBody = withoutRules(second.json);
    expectApiError(await send('PUT', `${policies}/app-tier`, { body: secondBody }), 412);
    const third = await send('GET', `${policies}/app-tier`);
    const thirdBody = withoutRules(third.json);
    expect((await send('PUT', `${policies}/app-tier`, { body: thirdBody })).status).toBe(200);
    expect(sim.counters).toMatchObject({ foreignWrites: 2 });
    expect(sim.counters.conflicts).toHaveLength(2);
  });

  it('refuses a rule naming a group or service that does not exist, or ANY beside a path', async () => {
    expectApiError(
      await send('PATCH', `${rules}/r`, {
        body: { source_groups: ['/infra/domains/default/groups/nope'] },
      }),
      400,
    );
    expectApiError(
      await send('PATCH', `${rules}/r`, { body: { services: ['/infra/services/nope'] } }),
      400,
    );
    expectApiError(
      await send('PATCH', `${rules}/r`, {
        body: { destination_groups: ['ANY', '/infra/domains/default/groups/web-servers'] },
      }),
      400,
    );
  });

  it('takes IPv4 and IPv6 addresses, CIDRs and ranges in source and destination groups, beside paths', async () => {
    const body = {
      source_groups: ['10.0.1.10', '10.0.2.0/24', '/infra/domains/default/groups/web-servers'],
      destination_groups: ['10.0.3.5-10.0.3.9', 'fd00:10::/64', 'fd00::1', 'fd00::1-fd00::9'],
    };
    expect((await send('PATCH', `${rules}/ips`, { body })).status).toBe(200);
    const read = await send('GET', `${rules}/ips`);
    expect(read.json).toMatchObject(body);
    expect(sim.counters.refusals).toEqual([]);
  });

  it('refuses what is neither a path nor an address in the groups, and an address among services', async () => {
    for (const value of ['10.0.1.300', '10.0.0.0/33', '10.0.0.9-fd00::1', 'web-servers']) {
      const answer = await send('PATCH', `${rules}/r`, { body: { source_groups: [value] } });
      expectApiError(answer, 400, 255);
    }
    expectApiError(await send('PATCH', `${rules}/r`, { body: { services: ['10.0.0.1'] } }), 400);
    expectApiError(
      await send('PATCH', `${rules}/r`, { body: { destination_groups: ['any', '10.0.0.1'] } }),
      400,
    );
    expect(sim.counters.refusals.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400]);
  });

  it('deletes a rule, and a policy with its rules', async () => {
    expect((await send('DELETE', `${rules}/drop-rest`)).status).toBe(200);
    expect((await send('GET', `${rules}/drop-rest`)).status).toBe(404);
    expect((await send('DELETE', `${policies}/app-tier`)).status).toBe(200);
    expect((await send('GET', `${policies}/app-tier`)).status).toBe(404);
    expect((await send('GET', rules)).status).toBe(404);
    expect((await send('DELETE', `${groups}/web-servers`)).status).toBe(200);
  });

  it('creates a policy with rules in one PATCH', async () => {
    const answer = await send('PATCH', `${policies}/ops`, {
      body: {
        display_name: 'Ops',
        category: 'Infrastructure',
        rules: [{ id: 'ops-ssh', services: ['/infra/services/SSH'] }],
      },
    });
    expect(answer.status).toBe(200);
    const read = await send('GET', `${policies}/ops`);
    expect(read.json).toMatchObject({ rule_count: 1, rules: [{ id: 'ops-ssh', action: 'ALLOW' }] });
  });
});

describe('the NSX-T simulator: load balancer and Tier-1s', () => {
  it('changes a virtual server with PATCH and refuses a bad address or ports', async () => {
    expect(
      (await send('PATCH', `${policy}/lb-virtual-servers/web-vip`, { body: { ports: ['8443'] } }))
        .status,
    ).toBe(200);
    const read = await send('GET', `${policy}/lb-virtual-servers/web-vip`);
    expect(read.json).toMatchObject({ ports: ['8443'], ip_address: '10.0.9.10', _revision: 1 });
    expectApiError(
      await send('PATCH', `${policy}/lb-virtual-servers/web-vip`, {
        body: { ip_address: '10.0.9' },
      }),
      400,
    );
    expectApiError(
      await send('PATCH', `${policy}/lb-virtual-servers/web-vip`, { body: { ports: [] } }),
      400,
    );
  });

  it('refuses a virtual server whose LB service or application profile does not exist', async () => {
    const server = {
      ip_address: '10.0.9.11',
      ports: ['80'],
      lb_service_path: '/infra/lb-services/web-lb',
      application_profile_path: '/infra/lb-app-profiles/default-http-lb-app-profile',
    };
    expect((await send('PUT', `${policy}/lb-virtual-servers/v2`, { body: server })).status).toBe(
      200,
    );
    const noService = await send('PUT', `${policy}/lb-virtual-servers/v3`, {
      body: { ...server, lb_service_path: '/infra/lb-services/nope' },
    });
    expectApiError(noService, 400);
    expect(noService.json['error_message']).toContain('lb_service_path');
    const noProfile = await send('PUT', `${policy}/lb-virtual-servers/v3`, {
      body: { ...server, application_profile_path: '/infra/lb-app-profiles/nope' },
    });
    expectApiError(noProfile, 400);
    expect(noProfile.json['error_message']).toContain('application_profile_path');
    expectApiError(
      await send('PUT', `${policy}/lb-virtual-servers/v3`, {
        body: { ...server, application_profile_path: '/infra/lb-services/web-lb' },
      }),
      400,
    );
    expect(sim.object('/infra/lb-virtual-servers/v3')).toBeUndefined();
  });

  it('lists the LB service on t1-web with its virtual server, and refuses to delete it while used', async () => {
    const list = await send('GET', `${policy}/lb-services`);
    expect(list.json).toMatchObject({
      result_count: 1,
      results: [
        {
          id: 'web-lb',
          path: '/infra/lb-services/web-lb',
          connectivity_path: '/infra/tier-1s/t1-web',
        },
      ],
    });
    expect(sim.object('/infra/lb-virtual-servers/web-vip')).toMatchObject({
      lb_service_path: '/infra/lb-services/web-lb',
    });
    expectApiError(await send('DELETE', `${policy}/lb-services/web-lb`), 400, 500030);
    expect((await send('DELETE', `${policy}/lb-virtual-servers/web-vip`)).status).toBe(200);
    expect((await send('DELETE', `${policy}/lb-services/web-lb`)).status).toBe(200);
    expect((await send('GET', `${policy}/lb-services/web-lb`)).status).toBe(404);
  });

  it('creates an LB service on an existing Tier-1 only', async () => {
    const made = await send('PUT', `${policy}/lb-services/iso-lb`, {
      body: { connectivity_path: '/infra/tier-1s/t1-isolated' },
    });
    expect(made.status).toBe(200);
    expect(made.json).toMatchObject({
      resource_type: 'LBService',
      enabled: true,
      size: 'SMALL',
      _revision: 0,
    });
    expectApiError(
      await send('PUT', `${policy}/lb-services/bad-lb`, {
        body: { connectivity_path: '/infra/tier-1s/nope' },
      }),
      400,
    );
    expectApiError(
      await send('PUT', `${policy}/lb-services/bad-lb`, { body: { size: 'HUGE' } }),
      400,
      255,
    );
  });

  it('answers the three default application profiles by type, system owned', async () => {
    const list = await send('GET', `${policy}/lb-app-profiles`);
    expect(
      (list.json['results'] as Array<{ id: string; resource_type: string }>).map((p) => [
        p.id,
        p.resource_type,
      ]),
    ).toEqual([
      ['default-http-lb-app-profile', 'LBHttpProfile'],
      ['default-tcp-lb-app-profile', 'LBFastTcpProfile'],
      ['default-udp-lb-app-profile', 'LBFastUdpProfile'],
    ]);
    const http = await send('GET', `${policy}/lb-app-profiles/default-http-lb-app-profile`);
    expect(http.json).toMatchObject({ resource_type: 'LBHttpProfile', _system_owned: true });
    expectApiError(
      await send('PATCH', `${policy}/lb-app-profiles/default-tcp-lb-app-profile`, {
        body: { idle_timeout: 10 },
      }),
      400,
      500071,
    );
    expectApiError(
      await send('DELETE', `${policy}/lb-app-profiles/default-udp-lb-app-profile`),
      400,
      500071,
    );
  });

  it("creates a profile of a named type, refuses one without a known type or with another type's field", async () => {
    const made = await send('PUT', `${policy}/lb-app-profiles/my-http`, {
      body: { resource_type: 'LBHttpProfile', x_forwarded_for: 'INSERT' },
    });
    expect(made.status).toBe(200);
    expect(made.json).toMatchObject({
      resource_type: 'LBHttpProfile',
      path: '/infra/lb-app-profiles/my-http',
    });
    expectApiError(await send('PUT', `${policy}/lb-app-profiles/p2`, { body: {} }), 400);
    expectApiError(
      await send('PUT', `${policy}/lb-app-profiles/p2`, {
        body: { resource_type: 'LBSourceIpPersistenceProfile' },
      }),
      400,
    );
    expectApiError(
      await send('PUT', `${policy}/lb-app-profiles/p2`, {
        body: { resource_type: 'LBFastUdpProfile', close_timeout: 8 },
      }),
      400,
      255,
    );
    expectApiError(
      await send('PATCH', `${policy}/lb-app-profiles/my-http`, {
        body: { resource_type: 'LBFastTcpProfile' },
      }),
      400,
    );
  });

  it('refuses a new virtual server without its required fields', async () => {
    expectApiError(
      await send('PUT', `${policy}/lb-virtual-servers/v2`, { body: { ip_address: '10.0.9.11' } }),
      400,
    );
  });

  it('lists the two Tier-1 gateways and reads one', async () => {
    const list = await send('GET', `${policy}/tier-1s`);
    expect((list.json['results'] as Array<{ id: string }>).map((t) => t.id)).toEqual([
      't1-web',
      't1-isolated',
    ]);
    const one = await send('GET', `${policy}/tier-1s/t1-web`);
    expect(one.json).toMatchObject({ type: 'ROUTED', tier0_path: '/infra/tier-0s/t0-core' });
  });
});

describe('the NSX-T simulator: strictness', () => {
  it('refuses a body with a field the definition lacks, or of the wrong type, with 400', async () => {
    const unknown = await send('PATCH', `${groups}/g`, {
      body: { display_name: 'g', colour: 'red' },
    });
    expectApiError(unknown, 400, 255);
    expect(unknown.json['error_message']).toContain('colour');
    expectApiError(await send('PATCH', `${groups}/g`, { body: { display_name: 7 } }), 400);
    expectApiError(await send('PATCH', `${rules}/r`, { body: { action: 'PERMIT' } }), 400);
    expectApiError(await send('PATCH', `${rules}/r`, { body: { sequence_number: -1 } }), 400);
    expectApiError(
      await send('PATCH', `${groups}/g`, {
        body: { expression: [{ resource_type: 'Condition', key: 'Tag', value: 'x' }] },
      }),
      400,
    );
    expectApiError(await send('PATCH', `${groups}/g`, { body: { id: 'other' } }), 400);
  });

  it('answers, on a tour of every route, only bodies that are instances of their definitions', async () => {
    const tour: Array<[string, string, string, unknown?]> = [
      ['GET', '/api/v1/node/version', 'NodeVersion'],
      ['GET', groups, 'GroupListResult'],
      ['GET', `${groups}?page_size=1`, 'GroupListResult'],
      ['GET', `${groups}/web-servers`, 'Group'],
      [
        'PUT',
        `${groups}/tour`,
        'Group',
        {
          expression: [
            { resource_type: 'IPAddressExpression', ip_addresses: ['fd00::1'] },
            { resource_type: 'ConjunctionOperator', conjunction_operator: 'OR' },
            { resource_type: 'IPAddressExpression', ip_addresses: ['fd00::2'] },
          ],
        },
      ],
      ['GET', `${policy}/services`, 'ServiceListResult'],
      ['GET', `${policy}/services/HTTPS`, 'Service'],
      [
        'PUT',
        `${policy}/services/tour`,
        'Service',
        {
          service_entries: [
            {
              resource_type: 'L4PortSetServiceEntry',
              l4_protocol: 'UDP',
              destination_ports: ['53'],
            },
          ],
        },
      ],
      ['GET', policies, 'SecurityPolicyListResult'],
      ['GET', `${policies}/app-tier`, 'SecurityPolicy'],
      [
        'PUT',
        `${policies}/tour`,
        'SecurityPolicy',
        { category: 'Application', rules: [{ id: 'tour-rule', action: 'DROP' }] },
      ],
      ['GET', rules, 'RuleListResult'],
      ['GET', `${rules}/allow-web`, 'Rule'],
      ['PUT', `${rules}/tour`, 'Rule', { action: 'REJECT', services: ['/infra/services/tour'] }],
      ['GET', `${policy}/lb-virtual-servers`, 'LBVirtualServerListResult'],
      ['GET', `${policy}/lb-virtual-servers/web-vip`, 'LBVirtualServer'],
      [
        'PUT',
        `${policy}/lb-virtual-servers/tour`,
        'LBVirtualServer',
        {
          ip_address: '10.0.9.20',
          ports: ['80'],
          application_profile_path: '/infra/lb-app-profiles/default-http-lb-app-profile',
        },
      ],
      ['GET', `${policy}/tier-1s`, 'Tier1ListResult'],
      ['GET', `${policy}/tier-1s/t1-isolated`, 'Tier1'],
      ['GET', `${policy}/lb-services`, 'LBServiceListResult'],
      ['GET', `${policy}/lb-services/web-lb`, 'LBService'],
      [
        'PUT',
        `${policy}/lb-services/tour`,
        'LBService',
        { connectivity_path: '/infra/tier-1s/t1-isolated', error_log_level: 'WARNING' },
      ],
      ['GET', `${policy}/lb-app-profiles`, 'LBAppProfileListResult'],
      ['GET', `${policy}/lb-app-profiles/default-http-lb-app-profile`, 'LBHttpProfile'],
      ['GET', `${policy}/lb-app-profiles/default-tcp-lb-app-profile`, 'LBFastTcpProfile'],
      ['GET', `${policy}/lb-app-profiles/default-udp-lb-app-profile`, 'LBFastUdpProfile'],
      [
        'PUT',
        `${policy}/lb-app-profiles/tour`,
        'LBFastTcpProfile',
        { resource_type: 'LBFastTcpProfile', idle_timeout: 60 },
      ],
    ];
    for (const [method, path, definition, body] of tour) {
      const answer = await send(method, path, body === undefined ? {} : { body });
      expect(answer.status, `${method} ${path}`).toBe(200);
      expect(specProblem(definition, answer.json), `${method} ${path}`).toBeNull();
    }
    for (const [method, path] of [
      ['GET', `${groups}/none`],
      ['PATCH', `${groups}/g`],
      ['DELETE', `${groups}/web-servers`],
    ] as const) {
      const answer = await send(method, path, method === 'PATCH' ? { body: { x: 1 } } : {});
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(specProblem('ApiError', answer.json, false)).toBeNull();
    }
    expect(sim.counters.answerViolations).toEqual([]);
  });
});
