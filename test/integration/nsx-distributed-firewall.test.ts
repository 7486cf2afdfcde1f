import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/server.ts';
import { attr, kids, kidText, writeXml } from '../../simulators/nsx/v/sim-xml.ts';
import { basic, bodyOf, calls } from '../helpers/nsx.ts';
import { memoryAuditLog, startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ nsx: { manager: 'nsx-v' } });
});
afterAll(async () => {
  await stack.close();
});
beforeEach(() => {
  stack.nsx.reset();
});

const base = '/api/4.0/firewall/globalroot-0/config';

function storedSection(layer: 'LAYER3' | 'LAYER2', id: string) {
  const section = stack.nsx.state.distributedFirewall.sections.find(
    (s) => s.layer === layer && attr(s.element, 'id') === id,
  );
  if (section === undefined) throw new Error(`no section ${id}`);
  return section;
}

function storedRuleXml(layer: 'LAYER3' | 'LAYER2', id: string): Map<string, string> {
  return new Map(
    kids(storedSection(layer, id).element, 'rule').map((rule) => [
      attr(rule, 'id') ?? '',
      writeXml(rule),
    ]),
  );
}

const add = `mutation ($section: ID!, $layer: FirewallLayer, $rule: DistributedFirewallRuleInput!) {
  addFirewallSectionRule(sectionId: $section, layer: $layer, rule: $rule) {
    id name layer generationNumber
    rules { id name action disabled logged notes sources destinations services appliedToList }
  }
}`;

describe('reading the distributed firewall', () => {
  it('answers every section with its rules, layer 3 first', async () => {
    const answer = await stack.gql<any>(`{
      distributedFirewall { generationNumber sections { id name layer generationNumber rules { id name action disabled logged } } }
    }`);
    expect(answer.errors).toBeUndefined();
    const firewall = answer.data?.distributedFirewall;
    expect(firewall.sections.map((s: { id: string; layer: string }) => [s.id, s.layer])).toEqual([
      ['4', 'LAYER3'],
      ['2', 'LAYER3'],
      ['1', 'LAYER2'],
    ]);
    expect(firewall.generationNumber).toBe('1510700045886');
    expect(firewall.sections[0].rules[0]).toEqual({
      id: '16',
      name: 'okn-2',
      action: 'ALLOW',
      disabled: false,
      logged: true,
    });
    expect(calls(stack.nsx)).toEqual([`GET ${base}`]);
    expect(stack.nsx.requests[0]?.headers['authorization']).toBe(basic(stack.nsx));
  });

  it('answers one section with its ETag as the generation number, unquoted', async () => {
    const answer = await stack.gql<any>(`{
      firewallSection(id: "4") { id name layer generationNumber rules { id sources services appliedToList } }
    }`);
    expect(answer.errors).toBeUndefined();
    const section = answer.data?.firewallSection;
    expect(section).toMatchObject({ id: '4', name: 'TestSection', layer: 'LAYER3' });
    expect(section.generationNumber).toBe('1510700045886');
    expect(section.rules[0].sources).toMatchObject({
      '@excluded': 'false',
      source: [{ value: 'datacenter-57', type: 'Datacenter' }, { value: '10.112.1.1' }],
    });
    expect(section.rules[0].services.service[1]).toMatchObject({ value: 'application-161' });
    expect(calls(stack.nsx)).toEqual([`GET ${base}/layer3sections/4`]);
  });

  it('answers null for an unknown section, and for a manager without a distributed firewall', async () => {
    const unknown = await stack.gql<any>(`{ firewallSection(id: "99", layer: LAYER2) { id } }`);
    expect(unknown.errors).toBeUndefined();
    expect(unknown.data?.firewallSection).toBeNull();
    expect(calls(stack.nsx)).toEqual([`GET ${base}/layer2sections/99`]);
    const vcns = await startStack({ nsx: { manager: 'vcns' } });
    try {
      const answer = await vcns.gql<any>(`{ distributedFirewall { generationNumber } }`);
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.distributedFirewall).toBeNull();
    } finally {
      await vcns.close();
    }
  });
});

describe('addFirewallSectionRule', () => {
  const rule = {
    name: 'web to app',
    action: 'allow',
    logged: true,
    notes: 'R&D <lab> "α"',
    sources: { '@excluded': 'false', source: [{ value: 'ipset-3', type: 'IPSet' }] },
    services: { service: { value: 'application-400' } },
  };

  it('posts the rule with the section generation number as If-Match and answers the section read back', async () => {
    const before = storedRuleXml('LAYER3', '4');
    const answer = await stack.gql<any>(add, { section: '4', rule });
    expect(answer.errors).toBeUndefined();
    const section = answer.data?.addFirewallSectionRule;
    expect(section.rules[0]).toMatchObject({
      id: '17',
      name: 'web to app',
      action: 'allow',
      logged: true,
      disabled: false,
      notes: 'R&D <lab> "α"',
      services: { service: { value: 'application-400' } },
    });
    expect(section.generationNumber).not.toBe('1510700045886');
    expect(calls(stack.nsx)).toEqual([
      `GET ${base}/layer3sections/4`,
      `POST ${base}/layer3sections/4/rules`,
      `GET ${base}/layer3sections/4`,
    ]);
    const post = stack.nsx.requests[1];
    expect(post?.headers['if-match']).toBe('1510700045886');
    expect(post?.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(bodyOf(post)).toEqual({
      rule: {
        '@disabled': 'false',
        '@logged': 'true',
        name: 'web to app',
        action: 'allow',
        notes: 'R&D <lab> "α"',
        sectionId: '4',
        sources: { '@excluded': 'false', source: { value: 'ipset-3', type: 'IPSet' } },
        services: { service: { value: 'application-400' } },
      },
    });
    // Every other rule of the section is exactly as it was, unmodelled elements included.
    const after = storedRuleXml('LAYER3', '4');
    for (const [id, xml] of before) expect(after.get(id), `rule ${id}`).toBe(xml);
  });

  it('reads the section again and resends the rule when another writer came first (412)', async () => {
    stack.nsx.switches.foreignSectionWrites = 2;
    const answer = await stack.gql<any>(add, { section: '4', rule });
    expect(answer.errors).toBeUndefined();
    expect(calls(stack.nsx).filter((c) => c.startsWith('POST'))).toHaveLength(3);
    expect(stack.nsx.state.distributedFirewall.staleRefusals).toBe(2);
    const names = answer.data?.addFirewallSectionRule.rules.map((r: { name: string }) => r.name);
    expect(names.slice(0, 3)).toEqual(['web to app', 'foreign change 1', 'foreign change 2']);
    // Each resend carried the generation number of the read just before it.
    const posts = stack.nsx.requests.filter((r) => r.method === 'POST');
    expect(new Set(posts.map((p) => p.headers['if-match'])).size).toBe(3);
  });

  it('gives up with CONFLICT when every attempt is stale', async () => {
    stack.nsx.switches.foreignSectionWrites = 1000;
    const answer = await stack.gql<any>(add, { section: '4', rule });
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      upstream: { service: 'nsx', status: 412 },
    });
  });

  it('adds to a layer-2 section under layer2sections', async () => {
    const answer = await stack.gql<any>(add, {
      section: '1',
      layer: 'LAYER2',
      rule: { action: 'deny', name: 'no broadcast' },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.addFirewallSectionRule.layer).toBe('LAYER2');
    expect(calls(stack.nsx)[1]).toBe(`POST ${base}/layer2sections/1/rules`);
    expect(kidText(kids(storedSection('LAYER2', '1').element, 'rule')[0]!, 'name')).toBe(
      'no broadcast',
    );
  });

  it.each([
    ['an unknown action', { action: 'permit' }],
    ['sources with no XML form', { action: 'allow', sources: { 'not a name': 1 } }],
  ])('refuses %s with BAD_USER_INPUT and no call', async (_what, bad) => {
    const answer = await stack.gql<any>(add, { section: '4', rule: bad });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(stack.nsx.requests).toHaveLength(0);
  });

  it('answers NOT_FOUND for an unknown section, with no write', async () => {
    const answer = await stack.gql<any>(add, { section: '77', rule });
    expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
    expect(calls(stack.nsx)).toEqual([`GET ${base}/layer3sections/77`]);
  });
});

describe('removeFirewallSectionRule', () => {
  const remove = `mutation ($rule: ID!) {
    removeFirewallSectionRule(sectionId: "4", ruleId: $rule) { generationNumber rules { id } }
  }`;

  it('deletes the rule with If-Match and keeps every other rule as it was', async () => {
    const before = storedRuleXml('LAYER3', '4');
    const answer = await stack.gql<any>(remove, { rule: '12' });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.removeFirewallSectionRule.rules.map((r: { id: string }) => r.id)).toEqual([
      '16',
    ]);
    expect(calls(stack.nsx)).toEqual([
      `GET ${base}/layer3sections/4`,
      `DELETE ${base}/layer3sections/4/rules/12`,
      `GET ${base}/layer3sections/4`,
    ]);
    expect(stack.nsx.requests[1]?.headers['if-match']).toBe('1510700045886');
    const after = storedRuleXml('LAYER3', '4');
    expect(after.get('16')).toBe(before.get('16'));
  });

  it('answers NOT_FOUND for a rule the section does not hold, without a DELETE', async () => {
    const answer = await stack.gql<any>(remove, { rule: '999' });
    expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', ruleId: '999' });
    expect(calls(stack.nsx)).toEqual([`GET ${base}/layer3sections/4`]);
  });
});

async function postTo(gateway: Gateway, query: string, variables: Record<string, unknown>) {
  const response = await gateway.yoga.fetch(
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
  return (await response.json()) as { data?: unknown; errors?: unknown[] };
}

describe('concurrent addFirewallSectionRule', () => {
  const names = (prefix: string) => Array.from({ length: 20 }, (_, i) => `${prefix} ${i}`);

  function expectAllRules(before: Map<string, string>, added: string[]): void {
    const after = storedRuleXml('LAYER3', '4');
    for (const [id, xml] of before) expect(after.get(id), `rule ${id}`).toBe(xml);
    const stored = kids(storedSection('LAYER3', '4').element, 'rule').map((r) =>
      kidText(r, 'name'),
    );
    for (const name of added) expect(stored).toContain(name);
    expect(after.size).toBe(before.size + added.length);
  }

  it('loses no rule when 20 are added at once through one gateway', async () => {
    const before = storedRuleXml('LAYER3', '4');
    const added = names('one gateway');
    const answers = await Promise.all(
      added.map((name) => stack.gql<any>(add, { section: '4', rule: { action: 'allow', name } })),
    );
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    expectAllRules(before, added);
  });

  it('loses no rule when two gateways add 20 rules at once, through real conflicts', async () => {
    const second = createGateway(stack.config, { audit: memoryAuditLog([]) });
    stack.nsx.faults.inject({ fault: { kind: 'delay', ms: 3 } });
    try {
      const before = storedRuleXml('LAYER3', '4');
      const added = names('two gateways');
      const answers = await Promise.all(
        added.map((name, i) => {
          const variables = { section: '4', rule: { action: 'allow', name } };
          return i % 2 === 0 ? stack.gql<any>(add, variables) : postTo(second, add, variables);
        }),
      );
      for (const answer of answers) expect(answer.errors).toBeUndefined();
      expectAllRules(before, added);
      // The gateways did collide: the manager refused stale writes, and they were redone.
      expect(stack.nsx.state.distributedFirewall.staleRefusals).toBeGreaterThan(0);
      const posts = stack.nsx.requests.filter((r) => r.method === 'POST');
      expect(posts).toHaveLength(20 + stack.nsx.state.distributedFirewall.staleRefusals);
    } finally {
      await second.close();
    }
  });
});
