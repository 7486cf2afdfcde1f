/**
 * Hostile names, descriptions, notes, ports and rule JSON for the network
 * mutations on ids that exist: whatever reaches the manager is well-formed
 * XML that carries the string as text, and what is written reads back the same.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anyJson,
  codesOf,
  refusedByGateway,
  expectNsxTextIntact,
  expectSafeUpstreamRequests,
  expectServing,
  hostile,
  mark,
  maybe,
  reachingChecks,
  send,
  since,
  usually,
} from '../helpers/property.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const addresses = usually(
  fc.array(fc.constantFrom('10.0.0.1', '10.0.0.0/24', '10.0.0.1-10.0.0.9', '::1'), {
    minLength: 1,
    maxLength: 3,
  }),
  fc.array(hostile, { maxLength: 3 }),
);

/** A firewall rule needs every part valid to get through: those properties give a valid example. */
const { hit, check: checkReaching } = reachingChecks('runs whose write reached the manager');
const writesSince = (marks: ReturnType<typeof mark>) =>
  since(stack, marks).nsx.filter((r) => r.method === 'POST' || r.method === 'PUT');

/** Sends, checks the common properties, and answers the answer and the NSX requests it caused. */
async function attempt(query: string, variables: Record<string, unknown>) {
  const marks = mark(stack);
  const answer = await send(stack, query, variables);
  expectSafeUpstreamRequests(stack, marks);
  if (writesSince(marks).length > 0) hit();
  await expectServing(stack);
  return { answer, marks, nsx: since(stack, marks).nsx };
}

describe('IP sets with hostile names and descriptions', () => {
  const ipSetFields = 'id name description addresses';
  it('createIpSet: text intact on the wire, read back the same', () =>
    checkReaching(
      fc.record({ name: hostile, description: maybe(hostile), addresses }),
      async (input) => {
        const { answer, marks, nsx } = await attempt(
          `mutation ($input: IpSetInput!) { createIpSet(input: $input) { ${ipSetFields} } }`,
          { input },
        );
        expectNsxTextIntact(stack, marks, input.name);
        if (input.description !== null && input.description !== '') {
          expectNsxTextIntact(stack, marks, input.description);
        }
        const created = answer.body.data?.['createIpSet'] as
          { id: string; name: string; description: string | null } | null | undefined;
        if (created) {
          expect(created.name).toBe(input.name);
          expect(created.description ?? '').toBe(input.description ?? '');
          const read = await send(stack, `{ ipSet(id: "${created.id}") { name description } }`);
          expect(read.body.data?.['ipSet']).toEqual({
            name: input.name,
            description: created.description,
          });
        } else {
          expect(codesOf(answer)).not.toContain('UPSTREAM_BAD_RESPONSE');
          if (refusedByGateway(answer)) expect(nsx).toEqual([]);
        }
      },
    ));

  it('updateIpSet of an existing set: text intact on the wire', () =>
    checkReaching(
      fc.record({
        id: fc.constantFrom('ipset-3', 'ipset-4', 'ipset-7'),
        input: fc.record({ name: hostile, description: maybe(hostile), addresses }),
      }),
      async ({ id, input }) => {
        const { answer, marks } = await attempt(
          `mutation ($id: ID!, $input: IpSetInput!) { updateIpSet(id: $id, input: $input) { ${ipSetFields} } }`,
          { id, input },
        );
        const writes = since(stack, marks).nsx.filter((r) => r.method === 'PUT');
        if (writes.length > 0) expectNsxTextIntact(stack, marks, input.name);
        const updated = answer.body.data?.['updateIpSet'] as { name: string } | null | undefined;
        if (updated) expect(updated.name).toBe(input.name);
      },
    ));
});

describe('services with hostile names, protocols and ports', () => {
  const ports = maybe(usually(fc.constantFrom('80', '443,8000-8080'), hostile));
  const serviceInput = fc.record({
    name: hostile,
    description: maybe(hostile),
    protocol: usually(
      fc.constantFrom('TCP', 'udp', 'MS_RPC_TCP'),
      fc.oneof(hostile, fc.constantFrom('ICMP', 'IGMP')),
    ),
    ports,
    sourcePorts: ports,
  });

  it('createService: text intact on the wire, read back the same', () =>
    checkReaching(serviceInput, async (input) => {
      const { answer, marks } = await attempt(
        'mutation ($input: ServiceInput!) { createService(input: $input) { id name description protocol ports } }',
        { input },
      );
      expectNsxTextIntact(stack, marks, input.name);
      const created = answer.body.data?.['createService'] as { name: string } | null | undefined;
      if (created) expect(created.name).toBe(input.name);
    }));

  it('updateService of an existing service: text intact on the wire', () =>
    checkReaching(
      fc.record({ id: fc.constantFrom('application-371', 'application-401'), input: serviceInput }),
      async ({ id, input }) => {
        const { marks } = await attempt(
          'mutation ($id: ID!, $input: ServiceInput!) { updateService(id: $id, input: $input) { id name } }',
          { id, input },
        );
        const writes = since(stack, marks).nsx.filter((r) => r.method === 'PUT');
        if (writes.length > 0) expectNsxTextIntact(stack, marks, input.name);
      },
    ));
});

describe('virtual servers with hostile fields', () => {
  it('addVirtualServer: text intact on the wire', () =>
    checkReaching(
      fc.record({
        name: hostile,
        description: maybe(hostile),
        ipAddress: usually(fc.constantFrom('10.1.1.1', '2001:db8::1'), hostile),
        protocol: usually(fc.constantFrom('HTTP', 'https', 'TCP'), hostile),
        port: usually(fc.constantFrom('443', '80,8080'), hostile),
        applicationProfileId: maybe(usually(fc.constant('applicationProfile-1'), hostile)),
        defaultPoolId: maybe(usually(fc.constant('pool-1'), hostile)),
      }),
      async (input) => {
        const { marks } = await attempt(
          'mutation ($input: VirtualServerInput!) { addVirtualServer(edgeId: "edge-1", input: $input) { id name } }',
          { input },
        );
        expectNsxTextIntact(stack, marks, input.name);
      },
      {
        name: 'web-vip',
        description: null,
        ipAddress: '10.1.1.1',
        protocol: 'HTTP',
        port: '443',
        applicationProfileId: null,
        defaultPoolId: null,
      },
    ));
});

describe('application firewall rules with hostile notes, actions and JSON parts', () => {
  /** JSON parts: objects of hostile keys and values, nested a little, or anything at all. */
  const part = maybe(
    usually(
      fc.dictionary(
        usually(fc.constantFrom('ipAddress', 'value', 'type', '@kind', '#text'), hostile),
        fc.oneof(hostile, fc.array(hostile, { maxLength: 2 }), fc.dictionary(hostile, hostile)),
        { maxKeys: 3 },
      ),
      anyJson,
    ),
  );
  const rule = fc.record(
    {
      action: usually(fc.constantFrom('allow', 'deny'), hostile),
      notes: maybe(hostile),
      precedence: usually(fc.constant('default'), hostile),
      source: part,
      destination: part,
    },
    { requiredKeys: ['action'] },
  );

  it('addApplicationFirewallRule: notes intact on the wire, other rules untouched', () =>
    checkReaching(
      rule,
      async (input) => {
        const { answer, marks } = await attempt(
          'mutation ($rule: FirewallRuleInput!) { addApplicationFirewallRule(portGroupId: "dvportgroup-63", rule: $rule) { generationNumber rules { id notes source } } }',
          { rule: input },
        );
        const posts = since(stack, marks).nsx.filter((r) => r.method === 'POST');
        if (typeof input.notes === 'string' && input.notes !== '' && posts.length > 0) {
          expectNsxTextIntact(stack, marks, input.notes);
        }
        const config = answer.body.data?.['addApplicationFirewallRule'] as
          { rules: Array<{ notes: string | null }> } | null | undefined;
        if (config && typeof input.notes === 'string' && input.notes !== '') {
          expect(config.rules.map((r) => r.notes)).toContain(input.notes);
        }
      },
      { action: 'allow', notes: 'from the example' },
    ));

  it('updateApplicationFirewall with random rule lists and generation numbers', () =>
    checkReaching(
      fc.record({
        rules: fc.array(rule, { maxLength: 3 }),
        generationNumber: maybe(fc.oneof(fc.constant('"1"'), hostile)),
      }),
      async (variables) => {
        await attempt(
          'mutation ($rules: [FirewallRuleInput!]!, $generationNumber: String) { updateApplicationFirewall(portGroupId: "datacenter-2", rules: $rules, generationNumber: $generationNumber) { generationNumber } }',
          variables,
        );
      },
      { rules: [{ action: 'deny' }], generationNumber: null },
    ));

  it('removeApplicationFirewallRule with random rule ids', () =>
    checkReaching(fc.oneof(hostile, fc.constantFrom('1001', '1002')), async (ruleId) => {
      await attempt(
        'mutation ($ruleId: ID!) { removeApplicationFirewallRule(portGroupId: "dvportgroup-63", ruleId: $ruleId) { generationNumber } }',
        { ruleId },
      );
    }));
});
