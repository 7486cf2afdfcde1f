import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun, vroReceived } from '../helpers/vro-runs.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const requestComponent = '6e04a460-4a45-4e16-9603-db2922c24462';
const provisionLinux = 'a9488d99-0bbb-4599-91ce-5dd2b45ed1f0';
const waitForSignal = 'a28defe3-9bf0-4273-9247-6f57a5e5a5ab';
const noOp = '3eabedcb-baa8-4dd4-88bd-64072bcfbe01';
const step = 1000;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ vro: { manualClock: true, stepMs: step } });
});
afterAll(async () => {
  await stack.close();
});

const formQuery = `query($id: ID!) { workflow(id: $id) { form { fields {
  name type label description required hidden step group choices defaultValue } } } }`;

describe('Workflow.form', () => {
  it('draws the captured presentation of Request Component: every input once, labels, requirements, drop-downs', async () => {
    const [answer, calls] = await vroReceived(stack, () =>
      stack.gql<any>(formQuery, { id: requestComponent }),
    );
    expect(answer.errors).toBeUndefined();
    const fields = answer.data.workflow.form.fields as any[];
    expect(fields.map((field: { name: string }) => field.name)).toEqual([
      'businessUnit',
      'environment',
      'component',
      'onBehalfOf',
      'machineCount',
      'image',
      'coreCount',
      'ramMB',
      'runlist',
      'reservation',
      'location',
      'attributesJS',
      'nodename',
    ]);
    expect(fields[0]).toEqual({
      name: 'businessUnit',
      type: 'string',
      label: 'businessUnit',
      description: 'businessUnit',
      required: true,
      hidden: false,
      step: null,
      group: null,
      choices: ['an', 'aw', 'soi'],
      defaultValue: null,
    });
    expect(fields.find((field) => field.name === 'ramMB')).toMatchObject({ choices: null });
    const presentationCalls = calls.filter((call) => call.path.endsWith('/presentation/'));
    expect(presentationCalls).toHaveLength(1);
    expect(presentationCalls[0]).toMatchObject({
      method: 'GET',
      rawPath: `/vco/api/workflows/${requestComponent}/presentation/`,
    });
    expect(presentationCalls[0]?.headers.accept).toBe('application/json');
    expect(presentationCalls[0]?.headers.authorization).toMatch(/^Basic /);
  });

  it('gives step and group titles, a predefined list, typed defaults and hidden fields', async () => {
    const answer = await stack.gql<any>(formQuery, { id: provisionLinux });
    expect(answer.errors).toBeUndefined();
    const byName = Object.fromEntries(
      (answer.data.workflow.form.fields as any[]).map((field) => [field.name, field]),
    );
    expect(byName['environment']).toMatchObject({
      step: 'Machine',
      group: 'Identity',
      required: true,
      choices: ['dev', 'test', 'prod'],
      defaultValue: 'dev',
    });
    // numbers arrive as doubles (2.0) and come out as numbers
    expect(byName['cpu']).toMatchObject({ group: 'Size', choices: [1, 2, 4, 8], defaultValue: 2 });
    expect(byName['networks']).toMatchObject({
      step: 'Placement',
      group: null,
      defaultValue: ['VM Network'],
    });
    expect(byName['tags']).toMatchObject({ hidden: true, type: 'Properties' });
  });

  it('reads the presentation once per workflow however often the form is selected', async () => {
    const [answer, calls] = await vroReceived(stack, () =>
      stack.gql<any>(
        `query($id: ID!) { a: workflow(id: $id) { form { fields { name } } }
           b: workflow(id: $id) { form { fields { label } } } }`,
        { id: noOp },
      ),
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.a.form.fields).toEqual([]);
    expect(calls.filter((call) => call.path.endsWith('/presentation/'))).toHaveLength(1);
  });
});

const historyQuery = `query($id: ID!, $first: Int, $after: String) { workflow(id: $id) {
  executions(first: $first, after: $after) {
    totalCount pageInfo { hasNextPage hasPreviousPage endCursor }
    edges { cursor node { id state startDate endDate startedBy name } } } } }`;

describe('Workflow.executions', () => {
  it('lists the seeded history newest first, with the failed run among them', async () => {
    const answer = await stack.gql<any>(historyQuery, { id: requestComponent });
    expect(answer.errors).toBeUndefined();
    const { executions } = answer.data.workflow;
    expect(executions.totalCount).toBe(3);
    const nodes = executions.edges.map(
      (edge: { node: { state: string; startDate: string } }) => edge.node,
    ) as Array<{ state: string; startDate: string }>;
    expect(nodes.map((node) => node.state)).toEqual(['COMPLETED', 'FAILED', 'COMPLETED']);
    const starts = nodes.map((node) => Date.parse(node.startDate));
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
    expect(nodes[1]).toMatchObject({
      startedBy: 'someuser@example.com',
      name: 'Request Component',
    });
  });

  it('pages newest first; a server that pages gets a one-run probe, then exactly the window', async () => {
    const runs = [
      await startRun(stack, echo),
      await startRun(stack, echo),
      await startRun(stack, echo),
    ];
    stack.vro.advance(step);
    const total = stack.vro.executions.filter((e) => e.workflowId === echo).length;
    const [first, firstCalls] = await vroReceived(stack, () =>
      stack.gql<any>(historyQuery, { id: echo, first: 2 }),
    );
    expect(first.errors).toBeUndefined();
    const page = first.data.workflow.executions;
    expect(page.totalCount).toBe(total);
    expect(page.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([
      runs[2],
      runs[1],
    ]);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const listCalls = firstCalls.filter((call) => call.path.endsWith('/executions/'));
    expect(listCalls.map((call) => Object.fromEntries(call.query))).toEqual([
      { maxResult: '1', startIndex: '0' },
      { maxResult: '2', startIndex: String(total - 2) },
    ]);
    expect(listCalls[0]?.rawPath).toBe(`/vco/api/workflows/${echo}/executions/`);

    const second = await stack.gql<any>(historyQuery, {
      id: echo,
      first: 2,
      after: page.pageInfo.endCursor,
    });
    expect(second.data.workflow.executions.edges[0].node.id).toBe(runs[0]);
    expect(second.data.workflow.executions.pageInfo.hasPreviousPage).toBe(true);
  });

  it('cuts the page itself, from one call, when the server ignores maxResult and startIndex', async () => {
    const runs = [await startRun(stack, echo), await startRun(stack, echo)];
    stack.vro.switches.executionPaging = 'ignore';
    try {
      const [answer, calls] = await vroReceived(stack, () =>
        stack.gql<any>(historyQuery, { id: echo, first: 2 }),
      );
      expect(answer.errors).toBeUndefined();
      expect(
        answer.data.workflow.executions.edges.map((edge: { node: { id: string } }) => edge.node.id),
      ).toEqual([runs[1], runs[0]]);
      expect(calls.filter((call) => call.path.endsWith('/executions/'))).toHaveLength(1);
    } finally {
      stack.vro.switches.executionPaging = 'honor';
    }
  });

  it('reads the detail of a listed run only when its parameters or exception are selected', async () => {
    const [plain, plainCalls] = await vroReceived(stack, () =>
      stack.gql<any>(historyQuery, { id: requestComponent, first: 3 }),
    );
    expect(plain.errors).toBeUndefined();
    expect(plainCalls.some((call) => /\/executions\/[0-9a-f]{32}\/$/.test(call.path))).toBe(false);
    const [detailed, detailCalls] = await vroReceived(stack, () =>
      stack.gql<any>(
        `query($id: ID!) { workflow(id: $id) { executions(first: 3) { nodes {
           state exception inputParameters { name value } } } } }`,
        { id: requestComponent },
      ),
    );
    expect(detailed.errors).toBeUndefined();
    const failed = detailed.data.workflow.executions.nodes[1];
    expect(failed.state).toBe('FAILED');
    expect(failed.exception).toMatch(/Compute Inputs/);
    expect(failed.inputParameters).toContainEqual({ name: 'businessUnit', value: 'aw' });
    expect(
      detailCalls.filter((call) => /\/executions\/[0-9a-f]{32}\/$/.test(call.path)),
    ).toHaveLength(3);
  });

  it('refuses a page size out of range or a foreign cursor before any call', async () => {
    for (const variables of [
      { id: echo, first: 0 },
      { id: echo, after: 'not-a-cursor' },
    ]) {
      const [answer, calls] = await vroReceived(stack, () =>
        stack.gql<any>(historyQuery, variables),
      );
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
      expect(calls.filter((call) => call.path.endsWith('/executions/'))).toHaveLength(0);
    }
  });
});

const logsQuery = `query($w: ID!, $e: ID!) { workflowExecution(workflowId: $w, executionId: $e) {
  state logs { severity timestamp user message detail } } }`;

describe('WorkflowExecution.logs', () => {
  it('grows as the run advances, newest first, with epoch-ms time-stamps as ISO instants', async () => {
    const startedAt = stack.vro.now();
    const id = await startRun(stack, waitForSignal);
    const read = async () => {
      const [answer, calls] = await vroReceived(stack, () =>
        stack.gql<any>(logsQuery, { w: waitForSignal, e: id }),
      );
      expect(answer.errors).toBeUndefined();
      return [answer.data.workflowExecution, calls] as const;
    };
    const [early, calls] = await read();
    expect(early.logs).toEqual([
      {
        severity: 'info',
        timestamp: new Date(startedAt).toISOString(),
        user: stack.vro.username,
        message: "Workflow 'Wait for signal' has started",
        detail: "Workflow 'Wait for signal' has started",
      },
    ]);
    expect(calls.map((call) => call.rawPath)).toContain(
      `/vco/api/workflows/${waitForSignal}/executions/${id}/logs/`,
    );
    stack.vro.advance(2 * step);
    const [paused] = await read();
    expect(paused.state).toBe('WAITING_SIGNAL');
    expect(paused.logs[0]).toMatchObject({ message: 'Workflow is paused' });
    stack.vro.advance(10 * step);
    const [done] = await read();
    expect(done.state).toBe('COMPLETED');
    expect(done.logs[0]).toMatchObject({ message: "Workflow 'Wait for signal' has completed" });
    expect(done.logs.at(-1).message).toBe("Workflow 'Wait for signal' has started");
  });

  it('answers a null run, without an error, when vRO does not know it', async () => {
    const answer = await stack.gql<any>(logsQuery, { w: echo, e: '0'.repeat(32) });
    expect(answer.errors).toBeUndefined();
    expect(answer.data.workflowExecution).toBeNull();
  });
});

const cancelMutation = `mutation($w: ID!, $e: ID!) { cancelWorkflowExecution(workflowId: $w, executionId: $e) {
  id state endDate logs { severity message user } } }`;

describe('cancelWorkflowExecution', () => {
  it('cancels a running run with DELETE .../state and answers it CANCELED', async () => {
    const id = await startRun(stack, waitForSignal);
    stack.vro.advance(step);
    const [answer, calls] = await vroReceived(stack, () =>
      stack.gql<any>(cancelMutation, { w: waitForSignal, e: id }),
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.cancelWorkflowExecution).toMatchObject({
      id,
      state: 'CANCELED',
      endDate: new Date(stack.vro.now()).toISOString(),
    });
    expect(answer.data.cancelWorkflowExecution.logs[0]).toEqual({
      severity: 'warning',
      message: "Workflow 'Wait for signal' has been canceled",
      user: stack.vro.username,
    });
    const deletes = calls.filter((call) => call.method === 'DELETE');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.rawPath).toBe(`/vco/api/workflows/${waitForSignal}/executions/${id}/state`);
    expect(deletes[0]?.body.length).toBe(0);
    // the read after the cancel is made after the DELETE
    const deleteIndex = calls.findIndex((call) => call.method === 'DELETE');
    expect(
      calls.slice(deleteIndex + 1).some((call) => call.path.endsWith(`/executions/${id}/`)),
    ).toBe(true);
  });

  it('answers CONFLICT for a run that has already ended, with what vRO said, and changes nothing', async () => {
    const id = await startRun(stack, echo);
    stack.vro.advance(10 * step);
    const [answer, calls] = await vroReceived(stack, () =>
      stack.gql<any>(cancelMutation, { w: echo, e: id }),
    );
    expect(answer.data).toBeNull();
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      upstream: { service: 'vro', status: 400 },
    });
    expect(answer.errors?.[0]?.message).toMatch(/already ended \(completed\)/);
    expect(calls.filter((call) => call.method === 'DELETE')).toHaveLength(1);
    const after = await stack.gql<any>(logsQuery, { w: echo, e: id });
    expect(after.data.workflowExecution.state).toBe('COMPLETED');
  });

  it('answers CONFLICT too when the server refuses with 409', async () => {
    const id = await startRun(stack, echo);
    stack.vro.advance(10 * step);
    stack.vro.faults.inject({
      fault: {
        kind: 'status',
        status: 409,
        body: '{"status":"409","message":"Workflow token is not running"}',
        contentType: 'application/json',
      },
      method: 'DELETE',
      times: 1,
    });
    try {
      const answer = await stack.gql<any>(cancelMutation, { w: echo, e: id });
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'CONFLICT',
        upstream: { status: 409, message: 'Workflow token is not running' },
      });
    } finally {
      stack.vro.faults.clear();
    }
  });

  it('answers NOT_FOUND for an unknown run, and BAD_USER_INPUT for an id that cannot be one, before any call', async () => {
    const unknown = await stack.gql<any>(cancelMutation, { w: echo, e: 'f'.repeat(32) });
    expect(unknown.errors?.[0]?.extensions?.['code']).toBe('NOT_FOUND');
    const [bad, calls] = await vroReceived(stack, () =>
      stack.gql<any>(cancelMutation, { w: echo, e: '../../packages' }),
    );
    expect(bad.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(calls).toHaveLength(0);
  });

  it('completes the workflowExecution subscription of the run with CANCELED', async () => {
    const server = await listen(stack.gateway);
    const id = await startRun(stack, waitForSignal);
    const subscription = await SseSubscription.open(
      server.url,
      'subscription($w: ID!, $e: ID!) { workflowExecution(workflowId: $w, executionId: $e) { state } }',
      { w: waitForSignal, e: id },
    );
    try {
      const first = await subscription.next();
      expect(first?.data.data.workflowExecution.state).toBe('INITIALIZING');
      const cancel = await stack.gql<any>(cancelMutation, { w: waitForSignal, e: id });
      expect(cancel.data.cancelWorkflowExecution.state).toBe('CANCELED');
      const next = await subscription.next();
      expect(next?.data.data.workflowExecution.state).toBe('CANCELED');
      expect((await subscription.next())?.event).toBe('complete');
    } finally {
      subscription.close();
      await server.close();
    }
  });
});
