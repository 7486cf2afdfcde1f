import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/server.ts';
import { storedRules } from '../helpers/nsx.ts';
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

  it('loses no rule when two gateways add 20 rules at once against the same manager', async () => {
    const second = createGateway(stack.config);
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
      // Every write was made against the generation it read: stale ones were refused and redone.
      const posts = stack.nsx.requests.filter((r) => r.method === 'POST');
      expect(posts.length).toBeGreaterThanOrEqual(20);
      expect(stack.nsx.state.firewalls[0]?.generation).toBe(1312802020950 + 20);
    } finally {
      await second.close();
    }
  });
});
