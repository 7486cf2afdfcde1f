import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/server.ts';
import { storedRules } from '../helpers/nsx.ts';
import { memoryAuditLog, startStack, type Stack } from '../helpers/stack.ts';

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
const firewallPath = `/api/2.0/app/firewall/${context}/config`;
const add = `mutation ($n: String!) {
  addApplicationFirewallRule(portGroupId: "${context}", rule: { action: "deny", notes: $n, source: { address: { containerId: "ipset-3" } } }) {
    generationNumber
  }
}`;

async function postTo(gateway: Gateway, query: string, variables: Record<string, unknown>) {
  const response = await gateway.yoga.fetch(
    new Request('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
    }),
  );
  return (await response.json()) as { data?: unknown; errors?: unknown[] };
}

function expectAllRules(before: Map<string, string>, notes: string[]): void {
  const after = storedRules(stack.nsx, context);
  for (const [id, xml] of before) expect(after.get(id), `rule ${id}`).toBe(xml);
  const document = stack.nsx.firewallDocument(context);
  for (const note of notes) expect(document).toContain(`<notes>${note}</notes>`);
  expect(after.size).toBe(before.size + notes.length);
}

describe('concurrent addApplicationFirewallRule', () => {
  it('loses no rule when 20 are added at once through one gateway', async () => {
    const before = storedRules(stack.nsx, context);
    const notes = Array.from({ length: 20 }, (_, i) => `concurrent ${i}`);
    const answers = await Promise.all(notes.map((n) => stack.gql<any>(add, { n })));
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    expectAllRules(before, notes);
    expect(stack.nsx.state.firewalls[0]?.generation).toBe(1312802020950 + 20);
    expect(storedRules(stack.nsx, context).get('1004')).toContain('<sectionId>1007</sectionId>');
  });

  it('loses no rule when two gateways add 20 rules at once, through real conflicts', async () => {
    const second = createGateway(stack.config, { audit: memoryAuditLog([]) });
    // a few ms per call, so that one gateway's write lands between the other's read and write
    stack.nsx.faults.inject({ fault: { kind: 'delay', ms: 3 } });
    try {
      const before = storedRules(stack.nsx, context);
      const notes = Array.from({ length: 20 }, (_, i) => `two gateways ${i}`);
      const answers = await Promise.all(
        notes.map((n, i) =>
          i % 2 === 0 ? stack.gql<any>(add, { n }) : postTo(second, add, { n }),
        ),
      );
      for (const answer of answers) expect(answer.errors).toBeUndefined();
      expectAllRules(before, notes);
      expect(stack.nsx.state.firewalls[0]?.generation).toBe(1312802020950 + 20);
      // The gateways did collide: 20 writes went through, every other one was refused as
      // stale (it named a generation another write had already moved on) and was redone
      // on a fresh read.
      const to = (method: string) =>
        stack.nsx.requests.filter((r) => r.method === method && r.path === firewallPath);
      const posts = to('POST');
      expect(posts.length).toBeGreaterThan(20);
      expect(new Set(posts.map((r) => r.headers['if-match'])).size).toBe(20);
      expect(to('GET').length).toBeGreaterThanOrEqual(posts.length);
    } finally {
      await second.close();
    }
  });
});
