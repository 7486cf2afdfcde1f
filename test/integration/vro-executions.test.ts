import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun, vroReceived } from '../helpers/vro-runs.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const alwaysFails = '29a3b2e9-5d65-4441-9588-42dea2bc372f';
const waitForSignal = 'a28defe3-9bf0-4273-9247-6f57a5e5a5ab';
const step = 1000;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ vro: { manualClock: true, stepMs: step } });
});
afterAll(async () => {
  await stack.close();
});

const executionQuery = `
  query($w: ID!, $e: ID!) {
    workflowExecution(workflowId: $w, executionId: $e) {
      id workflowId state startDate endDate startedBy exception
      outputParameters { name type value }
    }
  }`;

async function read(workflowId: string, executionId: string): Promise<any> {
  const answer = await stack.gql<any>(executionQuery, { w: workflowId, e: executionId });
  expect(answer.errors).toBeUndefined();
  return answer.data?.workflowExecution;
}

describe('workflowExecution', () => {
  it('follows the run from INITIALIZING through RUNNING to COMPLETED, dates as ISO instants', async () => {
    const startedAt = stack.vro.now();
    const id = await startRun(stack, echo, [{ name: 'text', type: 'string', value: 'x' }]);
    expect((await read(echo, id)).state).toBe('INITIALIZING');
    stack.vro.advance(step);
    expect(await read(echo, id)).toMatchObject({ state: 'RUNNING', endDate: null });
    stack.vro.advance(step);
    expect((await read(echo, id)).state).toBe('RUNNING');
    stack.vro.advance(step);
    expect(await read(echo, id)).toMatchObject({
      id,
      workflowId: echo,
      state: 'COMPLETED',
      startDate: new Date(startedAt).toISOString(),
      endDate: new Date(startedAt + 3 * step).toISOString(),
      startedBy: stack.vro.username,
      exception: null,
    });
  });

  it('unwraps outputs to plain JSON: 326.0 is 326, arrays, properties, dates and SDK objects', async () => {
    const id = await startRun(stack, echo, [
      { name: 'count', type: 'number', value: 326 },
      { name: 'when', type: 'Date', value: '2014-12-19T21:43:46.833Z' },
      { name: 'matrix', type: 'Array/Array/number', value: [[1, 2], [3]] },
      { name: 'props', type: 'Properties', value: { a: 1, b: ['x'], c: { d: false } } },
      { name: 'vm', type: 'VC:VirtualMachine', value: 'vcenter-01/vm-7' },
    ]);
    stack.vro.advance(10 * step);
    const raw = await fetch(`${stack.vro.url.href}/workflows/${echo}/executions/${id}/`, {
      headers: {
        accept: 'application/json',
        authorization: `Basic ${Buffer.from(`${stack.vro.username}:${stack.vro.password}`).toString('base64')}`,
      },
    });
    const text = await raw.text();
    expect(text).toContain('{"number":{"value":326.0}}');
    expect(text).toContain('"date":{"value":"2014-12-19T21:43:46.833+00:00"}');
    const outputs = Object.fromEntries(
      (await read(echo, id)).outputParameters.map(
        (p: { name: string; value: unknown }) => [p.name, p.value] as const,
      ),
    );
    expect(outputs).toEqual({
      text: null,
      count: 326,
      flag: null,
      when: '2014-12-19T21:43:46.833Z',
      names: null,
      matrix: [[1, 2], [3]],
      props: { a: 1, b: ['x'], c: { d: false } },
      vm: { type: 'VC:VirtualMachine', id: 'vcenter-01/vm-7' },
      vms: null,
    });
  });

  it('reports a failed run as FAILED with its exception', async () => {
    const id = await startRun(stack, alwaysFails);
    stack.vro.advance(10 * step);
    expect(await read(alwaysFails, id)).toMatchObject({
      state: 'FAILED',
      exception:
        'Error in (Workflow:Always fails / Scriptable task (item1)#3) Deliberate failure for testing',
    });
  });

  it('maps waiting-signal and canceled', async () => {
    const id = await startRun(stack, waitForSignal);
    stack.vro.advance(2 * step);
    expect((await read(waitForSignal, id)).state).toBe('WAITING_SIGNAL');
    stack.vro.cancelExecution(id);
    expect(await read(waitForSignal, id)).toMatchObject({
      state: 'CANCELED',
      endDate: new Date(stack.vro.now()).toISOString(),
    });
  });

  it('answers null, without an error, for an execution or workflow vRO does not know', async () => {
    const answer = await stack.gql<any>(
      `{ a: workflowExecution(workflowId: "${echo}", executionId: "ff8080814a1cb55c014a6481a9927a78") { id }
         b: workflowExecution(workflowId: "00000000-0000-4000-8000-000000000000", executionId: "ff80") { id } }`,
    );
    expect(answer).toMatchObject({ data: { a: null, b: null } });
    expect(answer.errors).toBeUndefined();
  });

  it('refuses unsafe ids with BAD_USER_INPUT before any call', async () => {
    const [answer, sent] = await vroReceived(stack, () =>
      stack.gql<any>(executionQuery, { w: echo, e: '../../packages' }),
    );
    expect(sent).toHaveLength(0);
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'executionId',
    });
  });

  it('resolves the workflow of executions through one detail GET per workflow', async () => {
    const first = await startRun(stack, echo);
    const second = await startRun(stack, echo);
    const [answer, sent] = await vroReceived(stack, () =>
      stack.gql<any>(`{
        a: workflowExecution(workflowId: "${echo}", executionId: "${first}") { workflow { id name version } }
        b: workflowExecution(workflowId: "${echo}", executionId: "${second}") { workflow { name inputParameters { name } } }
      }`),
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.a.workflow).toEqual({
      id: echo,
      name: 'Echo parameters',
      version: '1.0.0',
    });
    expect(answer.data?.b.workflow.inputParameters).toHaveLength(10);
    expect(
      sent.filter((request) => request.rawPath === `/vco/api/workflows/${echo}/`),
    ).toHaveLength(1);
  });

  it('answers UPSTREAM_BAD_RESPONSE for a malformed execution body', async () => {
    const id = await startRun(stack, echo);
    stack.vro.faults.inject({ fault: { kind: 'malformed' } });
    try {
      const answer = await stack.gql<any>(executionQuery, { w: echo, e: id });
      expect(answer.data?.workflowExecution).toBeNull();
      expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BAD_RESPONSE' });
    } finally {
      stack.vro.faults.clear();
    }
  });
});
