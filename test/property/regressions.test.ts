/**
 * The counterexamples the bad-input properties found, kept as plain examples
 * (each was a gateway bug: INTERNAL_SERVER_ERROR or a tripped circuit breaker).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer, codesOf, mark, send, since } from '../helpers/property.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';

/** `{"a":[{"a":[...1...]}]}`, `levels` arrays and objects deep, as raw JSON text (too deep for JSON.stringify). */
const nestedJson = (levels: number): string =>
  '{"a":['.repeat(levels / 2) + '1' + ']}'.repeat(levels / 2);

async function sendRaw(query: string, variablesJson: string) {
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: `{"query":${JSON.stringify(query)},"variables":${variablesJson}}`,
  });
  return checkAnswer(response);
}

describe('variables that are required but missing or null', () => {
  it.each([
    ['missing', {}],
    ['null', { id: null }],
  ])(
    'a %s required variable is BAD_USER_INPUT, not INTERNAL_SERVER_ERROR',
    async (_, variables) => {
      const answer = await send(stack, 'query ($id: ID!) { ipSet(id: $id) { id } }', variables);
      expect(codesOf(answer)).toEqual(['BAD_USER_INPUT']);
    },
  );
});

describe('JSON inputs nested beyond reason', () => {
  const cases = [
    [
      'a runWorkflow Properties value',
      `mutation ($i: [WorkflowParameterInput!]) { runWorkflow(workflowId: "${echo}", inputs: $i) { execution { id } } }`,
      (json: string) => `{"i":[{"name":"props","type":"Properties","value":${json}}]}`,
    ],
    [
      'a firewall rule source',
      'mutation ($r: FirewallRuleInput!) { addApplicationFirewallRule(portGroupId: "dvportgroup-63", rule: $r) { generationNumber } }',
      (json: string) => `{"r":{"action":"allow","source":${json}}}`,
    ],
    [
      'catalog item forms',
      'mutation ($f: JSON) { registerCatalogItem(input: { providerId: "00000000-0000-4000-8000-000000000000", bindingId: "b", name: "n", description: "", iconId: "i", catalogItemTypeId: "c", outputResourceTypeId: "o", organization: { tenantRef: "t", tenantLabel: "t" }, forms: $f }) { catalogItem { id } } }',
      (json: string) => `{"f":${json}}`,
    ],
  ] as const;

  it.each(cases)(
    '%s 100 000 levels deep is BAD_USER_INPUT, nothing sent',
    async (_, query, vars) => {
      const marks = mark(stack);
      const answer = await sendRaw(query, vars(nestedJson(100_000)));
      expect(codesOf(answer)).toEqual(['BAD_USER_INPUT']);
      expect(answer.body.errors?.[0]?.message).toMatch(/nested deeper than 64 levels/);
      const sent = since(stack, marks);
      expect([...sent.vro, ...sent.nsx].filter((r) => r.method !== 'GET')).toEqual([]);
      expect(sent.vra.filter((r) => r.method === 'PUT')).toEqual([]);
    },
  );

  it('a Properties value 62 levels deep (within the limit of 64) is still accepted', async () => {
    const answer = await sendRaw(cases[0][1], cases[0][2](nestedJson(62)));
    expect(answer.body.errors).toBeUndefined();
  });

  it('a JSON value written inline is held to the same depth', async () => {
    const inline = '{a: ['.repeat(60) + '1' + ']}'.repeat(60);
    const answer = await send(
      stack,
      `mutation { runWorkflow(workflowId: "${echo}", inputs: [{ name: "props", type: "Properties", value: ${inline} }]) { execution { id } } }`,
    );
    expect(codesOf(answer)).toEqual(['BAD_USER_INPUT']);
  });

  it('an Array/Array/... type nested 50 000 times is BAD_USER_INPUT', async () => {
    const answer = await send(
      stack,
      `mutation ($i: [WorkflowParameterInput!]) { runWorkflow(workflowId: "${echo}", inputs: $i) { execution { id } } }`,
      { i: [{ name: 'names', type: `${'Array/'.repeat(50_000)}string`, value: [] }] },
    );
    expect(codesOf(answer)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('an unpaired surrogate in a workflow filter', () => {
  it('is BAD_USER_INPUT before any call, and never trips the circuit breaker', async () => {
    const marks = mark(stack);
    for (let i = 0; i < 12; i += 1) {
      const answer = await send(
        stack,
        'query ($f: WorkflowFilter) { workflows(filter: $f) { totalCount } }',
        { f: { nameContains: 'clone\ud800' } },
      );
      expect(codesOf(answer)).toEqual(['BAD_USER_INPUT']);
    }
    expect(since(stack, marks).vro).toEqual([]);
    const healthy = await send(stack, '{ workflows(first: 1) { totalCount } }');
    expect(healthy.body.errors).toBeUndefined();
    expect(stack.gateway.clients.vro.seam.health.circuit).toBe('closed');
  });
});
