import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { basic, bodyOf, calls, storedRules } from '../helpers/nsx.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

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

const context = 'dvportgroup-63';
const configPath = `/api/2.0/app/firewall/${context}/config`;
const seedGeneration = '1312802020950';
const ruleFields = 'id layer action disabled logged precedence notes source destination service';

const rule1004Source = {
  address: [{ containerId: 'ipset-3' }, { ipAddress: '10.9.9.0/24' }],
  exclude: 'false',
};

describe('applicationFirewall', () => {
  it('answers the ruleset typed, with the generation number unquoted and rule parts as JSON', async () => {
    const answer = await stack.gql<any>(
      `{ applicationFirewall(portGroupId: "${context}") { contextId generationNumber rules { ${ruleFields} } } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.applicationFirewall).toEqual({
      contextId: context,
      generationNumber: seedGeneration,
      rules: [
        {
          id: '1003',
          layer: 'LAYER3',
          action: 'allow',
          disabled: false,
          logged: true,
          precedence: 'high',
          notes: 'web tier to app tier',
          source: { address: { containerId: 'domain-c7' } },
          destination: {
            address: { containerId: 'dvportgroup-63' },
            application: { applicationSetId: 'application-161' },
          },
          service: null,
        },
        {
          id: '1004',
          layer: 'LAYER3',
          action: 'deny',
          disabled: false,
          logged: false,
          precedence: 'default',
          notes: 'block the <legacy> & "old" subnet – ü',
          source: rule1004Source,
          destination: { application: { applicationSetId: 'application-400' } },
          service: null,
        },
        {
          id: '1001',
          layer: 'LAYER3',
          action: 'allow',
          disabled: false,
          logged: false,
          precedence: 'default',
          notes: '',
          source: '',
          destination: '',
          service: null,
        },
        {
          id: '1002',
          layer: 'LAYER2',
          action: 'allow',
          disabled: false,
          logged: false,
          precedence: 'default',
          notes: '',
          source: null,
          destination: '',
          service: null,
        },
      ],
    });
    expect(calls(stack.nsx)).toEqual([`GET ${configPath}`]);
    expect(stack.nsx.requests[0]?.headers['authorization']).toBe(basic(stack.nsx));
  });

  it('lists layer-3 rules first whatever the manager order', async () => {
    const firewall = stack.nsx.state.firewalls[0];
    if (firewall === undefined) throw new Error('seed');
    firewall.configuration.kids.reverse();
    const answer = await stack.gql<any>(
      `{ applicationFirewall(portGroupId: "${context}") { rules { id } } }`,
    );
    expect(answer.data?.applicationFirewall.rules.map((r: { id: string }) => r.id)).toEqual([
      '1001',
      '1004',
      '1003',
      '1002',
    ]);
  });

  it('answers null for a port group the manager does not know', async () => {
    const answer = await stack.gql<any>(
      `{ applicationFirewall(portGroupId: "dvportgroup-404") { contextId } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.applicationFirewall).toBeNull();
  });
});

describe('updateApplicationFirewall', () => {
  const update = `mutation ($rules: [FirewallRuleInput!]!, $generation: String) {
    updateApplicationFirewall(portGroupId: "${context}", rules: $rules, generationNumber: $generation) {
      generationNumber rules { ${ruleFields} }
    }
  }`;

  it('posts the complete ruleset as text/xml with If-Match "<generation>", keeping the unmodelled parts of rules with an id', async () => {
    const answer = await stack.gql<any>(update, {
      generation: seedGeneration,
      rules: [
        { id: '1004', action: 'allow', logged: true, notes: 'now allowed', source: rule1004Source },
        {
          action: 'deny',
          notes: 'new <é> & "q"',
          destination: { address: { containerId: 'ipset-4' } },
        },
        { id: '1002', layer: 'LAYER2', action: 'deny' },
      ],
    });
    expect(answer.errors).toBeUndefined();
    expect(calls(stack.nsx)).toEqual([
      `GET ${configPath}`,
      `POST ${configPath}`,
      `GET ${configPath}`,
    ]);
    const post = stack.nsx.requests[1];
    expect(post?.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(post?.headers['if-match']).toBe(`"${seedGeneration}"`);
    expect(post?.headers['authorization']).toBe(basic(stack.nsx));
    expect(bodyOf(post)).toEqual({
      VshieldAppConfiguration: {
        firewallConfiguration: {
          '@contextId': context,
          layer3FirewallRule: [
            {
              '@managedBy': 'ops-team',
              '@disabled': 'false',
              '@precedence': 'default',
              '@id': '1004',
              sectionId: '1007',
              action: 'allow',
              logged: 'true',
              notes: 'now allowed',
              source: {
                address: [{ containerId: 'ipset-3' }, { ipAddress: '10.9.9.0/24' }],
                exclude: 'false',
              },
              destination: { application: { applicationSetId: 'application-400' } },
              appliedToList: {
                appliedTo: {
                  value: 'dvportgroup-63',
                  type: { '@kind': 'portgroup', '#text': 'DistributedVirtualPortgroup' },
                },
              },
            },
            {
              '@disabled': 'false',
              '@precedence': 'default',
              action: 'deny',
              logged: 'false',
              notes: 'new <é> & "q"',
              destination: { address: { containerId: 'ipset-4' } },
            },
          ],
          layer2FirewallRule: {
            '@disabled': 'false',
            '@precedence': 'default',
            '@id': '1002',
            action: 'deny',
            logged: 'false',
            notes: '',
            destination: '',
          },
        },
      },
    });
    // The same source JSON keeps the interleaved <address>/<exclude>/<address> order of rule 1004.
    expect(post?.body.toString()).toContain(
      '<source><address><containerId>ipset-3</containerId></address><exclude>false</exclude><address>',
    );
    const result = answer.data?.updateApplicationFirewall;
    expect(result.generationNumber).toBe('1312802020951');
    expect(result.rules.map((r: { id: string; notes: string }) => [r.id, r.notes])).toEqual([
      ['1004', 'now allowed'],
      ['1005', 'new <é> & "q"'],
      ['1002', ''],
    ]);
  });

  it('answers CONFLICT on a stale generation number, without retrying or changing anything', async () => {
    const before = stack.nsx.firewallDocument(context);
    const answer = await stack.gql<any>(update, {
      generation: '1312802020000',
      rules: [{ action: 'deny' }],
    });
    expect(answer.data).toBeNull();
    expect(answer.errors?.[0]?.extensions).toEqual({
      code: 'CONFLICT',
      upstream: {
        service: 'nsx',
        status: 412,
        code: '412',
        message: 'The configuration was changed by another user; read it again.',
      },
    });
    expect(calls(stack.nsx)).toEqual([`GET ${configPath}`, `POST ${configPath}`]);
    expect(stack.nsx.requests[1]?.headers['if-match']).toBe('"1312802020000"');
    expect(stack.nsx.firewallDocument(context)).toBe(before);
  });

  it('answers CONFLICT when the manager says 409 instead of 412', async () => {
    stack.nsx.switches.staleStatus = 409;
    const answer = await stack.gql<any>(update, { generation: '1', rules: [{ action: 'deny' }] });
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      upstream: { service: 'nsx', status: 409, code: '101' },
    });
  });

  it('reads the current generation number when none is given', async () => {
    const answer = await stack.gql<any>(update, { rules: [{ action: 'allow', notes: 'only' }] });
    expect(answer.data?.updateApplicationFirewall.rules).toHaveLength(1);
    expect(stack.nsx.requests[1]?.headers['if-match']).toBe(`"${seedGeneration}"`);
  });

  it('answers NOT_FOUND for a rule id the ruleset does not hold, before writing', async () => {
    const answer = await stack.gql<any>(update, { rules: [{ id: '4242', action: 'allow' }] });
    expect(answer.errors?.[0]?.extensions).toEqual({
      code: 'NOT_FOUND',
      ruleId: '4242',
      portGroupId: context,
    });
    expect(calls(stack.nsx)).toEqual([`GET ${configPath}`]);
  });

  it.each([
    ['a rule part with no XML form', [{ action: 'allow', source: { 'a b': 'x' } }], undefined],
    [
      'the same id twice',
      [
        { id: '1001', action: 'allow' },
        { id: '1001', action: 'deny' },
      ],
      undefined,
    ],
    ['an empty action', [{ action: '' }], undefined],
    ['a malformed generation number', [{ action: 'allow' }], '12 34'],
  ])('refuses %s before any call', async (_what, rules, generation) => {
    const answer = await stack.gql<any>(update, { rules, generation });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(stack.nsx.requests).toHaveLength(0);
  });
});

describe('addApplicationFirewallRule', () => {
  const add = `mutation ($rule: FirewallRuleInput!, $position: Int) {
    addApplicationFirewallRule(portGroupId: "${context}", rule: $rule, position: $position) {
      generationNumber rules { id layer notes source }
    }
  }`;

  it('splices the rule in at its position and leaves every other rule exactly as it was', async () => {
    const before = storedRules(stack.nsx, context);
    const answer = await stack.gql<any>(add, {
      rule: {
        action: 'deny',
        notes: 'line 1\nline 2 <&>"\'',
        source: { address: { '@type': 'x"y', containerId: 'ipset-4' } },
      },
      position: 1,
    });
    expect(answer.errors).toBeUndefined();
    const config = answer.data?.addApplicationFirewallRule;
    expect(config.rules.map((r: { id: string }) => r.id)).toEqual([
      '1003',
      '1005',
      '1004',
      '1001',
      '1002',
    ]);
    expect(config.rules[1]).toEqual({
      id: '1005',
      layer: 'LAYER3',
      notes: 'line 1\nline 2 <&>"\'',
      source: { address: { '@type': 'x"y', containerId: 'ipset-4' } },
    });
    const after = storedRules(stack.nsx, context);
    for (const [id, xml] of before) expect(after.get(id)).toBe(xml);
    expect(calls(stack.nsx)).toEqual([
      `GET ${configPath}`,
      `POST ${configPath}`,
      `GET ${configPath}`,
    ]);
    expect(stack.nsx.requests[1]?.headers['if-match']).toBe(`"${seedGeneration}"`);
    expect(stack.nsx.requests[1]?.headers['content-type']).toBe('text/xml; charset=utf-8');
  });

  it('appends at the end of the layer without a position', async () => {
    const answer = await stack.gql<any>(add, {
      rule: { action: 'allow', layer: 'LAYER2', notes: 'l2' },
    });
    expect(answer.data?.addApplicationFirewallRule.rules.map((r: { id: string }) => r.id)).toEqual([
      '1003',
      '1004',
      '1001',
      '1002',
      '1005',
    ]);
  });

  it('updates the rule of the given id in place, keeping what the gateway does not model', async () => {
    const answer = await stack.gql<any>(add, {
      rule: { id: '1004', action: 'allow', notes: 'edited' },
    });
    expect(answer.errors).toBeUndefined();
    const stored = storedRules(stack.nsx, context).get('1004') ?? '';
    expect(stored).toContain('managedBy="ops-team"');
    expect(stored).toContain('<sectionId>1007</sectionId>');
    expect(stored).toContain('<type kind="portgroup">DistributedVirtualPortgroup</type>');
    expect(stored).toContain('<notes>edited</notes>');
    expect(stored).toContain('<action>allow</action>');
  });

  it('refuses a position past the end of the layer after reading, without writing', async () => {
    const answer = await stack.gql<any>(add, {
      rule: { action: 'allow', layer: 'LAYER2' },
      position: 2,
    });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(calls(stack.nsx)).toEqual([`GET ${configPath}`]);
  });

  it('refuses a negative position and an unsafe port group before any call', async () => {
    let answer = await stack.gql<any>(add, { rule: { action: 'allow' }, position: -1 });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    answer = await stack.gql<any>(
      `mutation { addApplicationFirewallRule(portGroupId: "dvportgroup-63/../x", rule: { action: "allow" }) { contextId } }`,
    );
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(stack.nsx.requests).toHaveLength(0);
  });

  it('answers BAD_USER_INPUT with the manager refusal of a rule value', async () => {
    const answer = await stack.gql<any>(add, { rule: { action: 'bounce' } });
    expect(answer.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: { service: 'nsx', status: 400, code: '210', message: 'Invalid action bounce.' },
    });
  });

  it('starts again on a fresh ruleset when another client wrote in between, keeping that change', async () => {
    stack.nsx.switches.foreignFirewallWrites = 3;
    const answer = await stack.gql<any>(add, { rule: { action: 'deny', notes: 'mine' } });
    expect(answer.errors).toBeUndefined();
    const posts = stack.nsx.requests.filter((r) => r.method === 'POST');
    expect(posts.map((p) => p.headers['if-match'])).toEqual([
      '"1312802020950"',
      '"1312802020951"',
      '"1312802020952"',
      '"1312802020953"',
    ]);
    const notes = answer.data?.addApplicationFirewallRule.rules.map(
      (r: { notes: string }) => r.notes,
    );
    expect(notes).toEqual(
      expect.arrayContaining(['foreign change 3', 'foreign change 2', 'foreign change 1', 'mine']),
    );
    expect(answer.data?.addApplicationFirewallRule.rules).toHaveLength(8);
  });

  it('gives up with CONFLICT after ten attempts', async () => {
    stack.nsx.switches.foreignFirewallWrites = 10;
    const answer = await stack.gql<any>(add, { rule: { action: 'deny', notes: 'mine' } });
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      upstream: { service: 'nsx', status: 412 },
    });
    expect(stack.nsx.requests.filter((r) => r.method === 'POST')).toHaveLength(10);
    expect(stack.nsx.firewallDocument(context)).not.toContain('>mine<');
  });
});

describe('removeApplicationFirewallRule', () => {
  const remove = (id: string) =>
    stack.gql<any>(
      `mutation { removeApplicationFirewallRule(portGroupId: "${context}", ruleId: "${id}") { rules { id } } }`,
    );

  it('removes one rule and leaves every other rule exactly as it was', async () => {
    const before = storedRules(stack.nsx, context);
    const answer = await remove('1003');
    expect(answer.data?.removeApplicationFirewallRule.rules).toEqual([
      { id: '1004' },
      { id: '1001' },
      { id: '1002' },
    ]);
    const after = storedRules(stack.nsx, context);
    expect([...after.keys()]).toEqual(['1004', '1001', '1002']);
    for (const [id, xml] of after) expect(xml).toBe(before.get(id));
    expect(stack.nsx.requests[1]?.headers['if-match']).toBe(`"${seedGeneration}"`);
  });

  it('answers NOT_FOUND for a rule that is not there, without writing', async () => {
    const answer = await remove('9999');
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('NOT_FOUND');
    expect(calls(stack.nsx)).toEqual([`GET ${configPath}`]);
  });
});
