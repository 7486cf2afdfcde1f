/**
 * The caller's mistakes get the caller's codes (issue 13, item 7): what an
 * appliance refuses because of the caller answers BAD_USER_INPUT (a
 * duplicate: CONFLICT) with extensions.upstream, and what the gateway can
 * tell beforehand never reaches the appliance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, upstreamCalls, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

describe('duplicates', () => {
  it('answers CONFLICT with the manager refusal when a service is created again under its name', async () => {
    const create = `mutation ($input: ServiceInput!) { createService(scopeId: "globalroot-0", input: $input) { id } }`;
    const input = { name: 'twice-made', protocol: 'TCP', ports: '8443' };
    const first = await stack.gql<any>(create, { input });
    expect(first.errors).toBeUndefined();
    const second = await stack.gql<any>(create, { input });
    expect(second.data).toBeNull();
    expect(second.errors?.[0]?.extensions).toEqual({
      code: 'CONFLICT',
      upstream: {
        service: 'nsx',
        status: 400,
        code: '213',
        message: 'A service named twice-made already exists in globalroot-0.',
      },
    });
  });

  it('answers CONFLICT when an IP set is created again under its name', async () => {
    const create = `mutation { createIpSet(scopeId: "globalroot-0", input: { name: "twice-set", addresses: ["10.1.1.1"] }) { id } }`;
    expect((await stack.gql<any>(create)).errors).toBeUndefined();
    const again = await stack.gql<any>(create);
    expect(again.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      upstream: { service: 'nsx', status: 400, code: '213' },
    });
  });
});

describe('workflow filters', () => {
  const query = `query ($filter: WorkflowFilter) { workflows(filter: $filter, first: 1) { totalCount } }`;

  it.each(['name', 'nameContains', 'categoryName', 'version'])(
    'refuses a %s longer than 255 characters with BAD_USER_INPUT before any call',
    async (field) => {
      const before = stack.vro.requests.length;
      const answer = await stack.gql<any>(query, { filter: { [field]: 'x'.repeat(256) } });
      expect(answer.errors?.[0]).toMatchObject({
        message: `filter.${field} is longer than vRO accepts: at most 255 characters.`,
        extensions: { code: 'BAD_USER_INPUT', argument: `filter.${field}` },
      });
      expect(stack.vro.requests.length).toBe(before);
    },
  );

  it('sends a value of exactly 255 characters', async () => {
    const answer = await stack.gql<any>(query, { filter: { nameContains: 'é'.repeat(255) } });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.workflows.totalCount).toBe(0);
    expect(stack.vro.requests.at(-1)?.query.get('conditions')).toBe(`name~${'é'.repeat(255)}`);
  });

  it('the orchestration simulator refuses a longer condition value with 400, as vRO does', async () => {
    const conditions = encodeURIComponent(`name~${'x'.repeat(256)}`);
    const response = await fetch(
      new URL(`${stack.vro.url.href}/workflows?conditions=${conditions}`),
      {
        headers: {
          accept: 'application/json',
          authorization: `Basic ${Buffer.from(`${stack.vro.username}:${stack.vro.password}`).toString('base64')}`,
        },
      },
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('longer than 255 characters');
  });
});

describe('variables that do not fit their type', () => {
  const codes = async (query: string, variables: Record<string, unknown>) => {
    const before = upstreamCalls(stack);
    const answer = await stack.gql<any>(query, variables);
    expect(answer.data ?? null).toBeNull();
    expect(upstreamCalls(stack)).toBe(before);
    return answer.errors?.map((e) => e.extensions?.['code']);
  };
  const addRule = `mutation ($rule: FirewallRuleInput!) { addApplicationFirewallRule(portGroupId: "dvportgroup-63", rule: $rule) { generationNumber } }`;

  it('answers BAD_USER_INPUT for a required variable missing or null, or a value of another type, calling no upstream', async () => {
    const ipSet = 'query ($id: ID!) { ipSet(id: $id) { name } }';
    expect(await codes(ipSet, {})).toEqual(['BAD_USER_INPUT']);
    expect(await codes(ipSet, { id: null })).toEqual(['BAD_USER_INPUT']);
    const page = 'query ($first: Int) { workflows(first: $first) { totalCount } }';
    expect(await codes(page, { first: 'ten' })).toEqual(['BAD_USER_INPUT']);
    expect(await codes(addRule, { rule: { disabled: false } })).toEqual(['BAD_USER_INPUT']);
  });

  it('answers GRAPHQL_VALIDATION_FAILED for an unknown enum value inside an input object', async () => {
    expect(await codes(addRule, { rule: { action: 'allow', layer: 'LAYER9' } })).toEqual([
      'GRAPHQL_VALIDATION_FAILED',
    ]);
  });

  it('gives each fault of one variable its own code', async () => {
    const rule = { action: 'allow', layer: 'LAYER9', disabled: 'yes' };
    expect(await codes(addRule, { rule })).toEqual(['GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);
  });

  it('refuses a subscription whose variable is missing with BAD_USER_INPUT', async () => {
    const response = await stack.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        query:
          'subscription ($executionId: ID!) { workflowExecution(workflowId: "w", executionId: $executionId) { id } }',
        variables: {},
      }),
    });
    const data = /^data: (.*)$/m.exec(await response.text())?.[1];
    const event = JSON.parse(data ?? '{}') as {
      errors?: Array<{ extensions?: { code?: string } }>;
    };
    expect(event.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });
});
