import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const noop = '3eabedcb-baa8-4dd4-88bd-64072bcfbe01';

let stack: Stack;
beforeAll(async () => {
  // each test counts the detail reads of its own request (the cache across requests: cache-workflow-details)
  stack = await startStack({
    env: { WORKFLOW_DETAIL_CACHE_TTL_MS: '0' },
    vro: { manualClock: true, stepMs: 1000 },
  });
});
afterAll(async () => {
  await stack.close();
});

async function received<T>(action: () => Promise<T>): Promise<[T, RecordedRequest[]]> {
  const mark = stack.vro.requests.length;
  const result = await action();
  return [result, stack.vro.requests.slice(mark)];
}

const runMutation = `
  mutation Run($workflowId: ID!, $inputs: [WorkflowParameterInput!]) {
    runWorkflow(workflowId: $workflowId, inputs: $inputs) {
      execution {
        id workflowId state startDate endDate startedBy name exception
        inputParameters { name type value }
        outputParameters { name type value }
      }
    }
  }`;

const everyType = [
  { name: 'text', type: 'String', value: 'hello' },
  { name: 'count', type: 'number', value: 2 },
  { name: 'flag', type: 'BOOLEAN', value: true },
  { name: 'when', type: 'date', value: '2024-05-01T14:30:00+02:00' },
  { name: 'names', type: 'Array/string', value: ['a', 'b'] },
  { name: 'matrix', type: 'array/array/number', value: [[1, 2.5], []] },
  { name: 'props', type: 'Properties', value: { env: 'prod', replicas: 3, nested: { on: true } } },
  { name: 'secret', type: 'securestring', value: 'p@ss' },
  { name: 'vm', type: 'VC:VirtualMachine', value: { id: 'vcenter-01/vm-2660' } },
  {
    name: 'vms',
    type: 'Array/VC:VirtualMachine',
    value: ['vcenter-01/vm-1', { id: 'vcenter-01/vm-2' }],
  },
];

const sdk = (type: string, id: string) => ({ 'sdk-object': { type, id } });

describe('runWorkflow', () => {
  it('sends each input wrapped by its type and reads the new execution back', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(runMutation, { workflowId: echo, inputs: everyType }),
    );
    expect(answer.errors).toBeUndefined();
    const [detail, post, readBack] = sent;
    expect(sent).toHaveLength(3);
    expect(`${detail?.method} ${detail?.rawPath}`).toBe(`GET /vco/api/workflows/${echo}/`);
    expect(post?.method).toBe('POST');
    expect(post?.rawPath).toBe(`/vco/api/workflows/${echo}/executions/`);
    expect(post?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(post?.body.toString() ?? '')).toEqual({
      parameters: [
        { name: 'text', type: 'string', scope: 'local', value: { string: { value: 'hello' } } },
        { name: 'count', type: 'number', scope: 'local', value: { number: { value: 2 } } },
        { name: 'flag', type: 'boolean', scope: 'local', value: { boolean: { value: true } } },
        {
          name: 'when',
          type: 'Date',
          scope: 'local',
          value: { date: { value: '2024-05-01T12:30:00.000Z' } },
        },
        {
          name: 'names',
          type: 'Array/string',
          scope: 'local',
          value: { array: { elements: [{ string: { value: 'a' } }, { string: { value: 'b' } }] } },
        },
        {
          name: 'matrix',
          type: 'Array/Array/number',
          scope: 'local',
          value: {
            array: {
              elements: [
                { array: { elements: [{ number: { value: 1 } }, { number: { value: 2.5 } }] } },
                { array: { elements: [] } },
              ],
            },
          },
        },
        {
          name: 'props',
          type: 'Properties',
          scope: 'local',
          value: {
            properties: {
              property: [
                { key: 'env', value: { string: { value: 'prod' } } },
                { key: 'replicas', value: { number: { value: 3 } } },
                {
                  key: 'nested',
                  value: {
                    properties: { property: [{ key: 'on', value: { boolean: { value: true } } }] },
                  },
                },
              ],
            },
          },
        },
        {
          name: 'secret',
          type: 'SecureString',
          scope: 'local',
          value: { 'secure-string': { value: 'p@ss' } },
        },
        {
          name: 'vm',
          type: 'VC:VirtualMachine',
          scope: 'local',
          value: sdk('VC:VirtualMachine', 'vcenter-01/vm-2660'),
        },
        {
          name: 'vms',
          type: 'Array/VC:VirtualMachine',
          scope: 'local',
          value: {
            array: {
              elements: [
                sdk('VC:VirtualMachine', 'vcenter-01/vm-1'),
                sdk('VC:VirtualMachine', 'vcenter-01/vm-2'),
              ],
            },
          },
        },
      ],
    });
    const started = stack.vro.executions.at(-1);
    expect(readBack?.rawPath).toBe(`/vco/api/workflows/${echo}/executions/${started?.id}/`);
    const execution = answer.data?.runWorkflow.execution;
    expect(execution).toMatchObject({
      id: started?.id,
      workflowId: echo,
      state: 'INITIALIZING',
      startDate: new Date(stack.vro.now()).toISOString(),
      endDate: null,
      startedBy: stack.vro.username,
      name: 'Echo parameters',
      exception: null,
    });
    const inputs = Object.fromEntries(
      execution.inputParameters.map(
        (p: { name: string; value: unknown }) => [p.name, p.value] as const,
      ),
    );
    expect(inputs).toEqual({
      text: 'hello',
      count: 2,
      flag: true,
      when: '2024-05-01T12:30:00.000Z',
      names: ['a', 'b'],
      matrix: [[1, 2.5], []],
      props: { env: 'prod', replicas: 3, nested: { on: true } },
      secret: 'p@ss',
      vm: { type: 'VC:VirtualMachine', id: 'vcenter-01/vm-2660' },
      vms: [
        { type: 'VC:VirtualMachine', id: 'vcenter-01/vm-1' },
        { type: 'VC:VirtualMachine', id: 'vcenter-01/vm-2' },
      ],
    });
    expect(execution.outputParameters.every((p: any) => p.value === null)).toBe(true);
  });

  it('sends an empty parameters list for a run without inputs, and leaves out null inputs', async () => {
    const [answer, sent] = await received(() => stack.gql<any>(runMutation, { workflowId: noop }));
    expect(answer.data?.runWorkflow.execution.state).toBe('INITIALIZING');
    expect(sent.map((request) => request.method)).toEqual(['POST', 'GET']);
    expect(JSON.parse(sent[0]?.body.toString() ?? '')).toEqual({ parameters: [] });
    const [, withNull] = await received(() =>
      stack.gql<any>(runMutation, {
        workflowId: echo,
        inputs: [{ name: 'text', type: 'string', value: null }],
      }),
    );
    const post = withNull.find((request) => request.method === 'POST');
    expect(JSON.parse(post?.body.toString() ?? '')).toEqual({ parameters: [] });
  });

  it.each([
    ['"abc" for a number', [{ name: 'count', type: 'number', value: 'abc' }]],
    ['a string for an array', [{ name: 'names', type: 'Array/string', value: 'a' }]],
    ['an array for Properties', [{ name: 'props', type: 'Properties', value: ['a'] }]],
    ['a date without a time zone', [{ name: 'when', type: 'Date', value: '2024-05-01T12:00:00' }]],
    ['an unsupported type', [{ name: 'text', type: 'Any', value: 'x' }]],
    [
      'a name given twice',
      [
        { name: 'text', type: 'string', value: 'a' },
        { name: 'text', type: 'string', value: 'b' },
      ],
    ],
  ])('refuses %s with BAD_USER_INPUT and sends nothing', async (_case, inputs) => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(runMutation, { workflowId: echo, inputs }),
    );
    expect(sent).toHaveLength(0);
    expect(answer.data).toBeNull();
    expect(answer.errors?.[0]).toMatchObject({
      path: ['runWorkflow'],
      extensions: { code: 'BAD_USER_INPUT', argument: 'inputs' },
    });
  });

  it('refuses an unsafe workflow id with BAD_USER_INPUT and sends nothing', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(runMutation, { workflowId: '../packages' }),
    );
    expect(sent).toHaveLength(0);
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'workflowId',
    });
  });

  it('refuses an input the workflow does not declare with BAD_USER_INPUT naming it, and runs nothing', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(runMutation, {
        workflowId: echo,
        inputs: [
          { name: 'text', type: 'string', value: 'ok' },
          { name: 'cores', type: 'string', value: '2' },
        ],
      }),
    );
    expect(sent.map((request) => `${request.method} ${request.rawPath}`)).toEqual([
      `GET /vco/api/workflows/${echo}/`,
    ]);
    expect(answer.data).toBeNull();
    expect(answer.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'inputs' });
    expect(answer.errors?.[0]?.message).toMatch(
      /^Input "cores" is not an input of workflow "Echo parameters"; its inputs are "/,
    );
    expect(answer.errors?.[0]?.message).toContain('"count"');
  });

  it('refuses an input of another type than declared with BAD_USER_INPUT naming it, and runs nothing', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(runMutation, {
        workflowId: echo,
        inputs: [{ name: 'count', type: 'string', value: '2' }],
      }),
    );
    expect(sent.map((request) => request.method)).toEqual(['GET']);
    expect(answer.errors?.[0]).toMatchObject({
      message: 'Input "count" is declared as number, not string.',
      extensions: { code: 'BAD_USER_INPUT', argument: 'inputs' },
    });
  });

  it('reads the workflow once for its declared inputs, sharing the read with the rest of the request', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(
        `mutation ($id: ID!, $inputs: [WorkflowParameterInput!]) {
          first: runWorkflow(workflowId: $id, inputs: $inputs) { execution { id } }
          second: runWorkflow(workflowId: $id, inputs: $inputs) { execution { id } }
        }`,
        { id: echo, inputs: [{ name: 'text', type: 'string', value: 'x' }] },
      ),
    );
    expect(answer.errors).toBeUndefined();
    expect(
      sent.filter((request) => request.rawPath === `/vco/api/workflows/${echo}/`),
    ).toHaveLength(1);
    expect(sent.filter((request) => request.method === 'POST')).toHaveLength(2);
  });

  it("answers BAD_USER_INPUT with vRO's own 400 for a run it refuses", async () => {
    stack.vro.faults.inject({
      fault: {
        kind: 'status',
        status: 400,
        body: JSON.stringify({ message: 'Parameter "text" must not be empty' }),
        contentType: 'application/json',
      },
      method: 'POST',
      times: 1,
    });
    const answer = await stack.gql<any>(runMutation, {
      workflowId: echo,
      inputs: [{ name: 'text', type: 'string', value: '' }],
    });
    expect(answer.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: {
        service: 'vro',
        status: 400,
        code: null,
        message: 'Parameter "text" must not be empty',
      },
    });
  });

  it('answers NOT_FOUND for a workflow vRO does not know', async () => {
    const answer = await stack.gql<any>(runMutation, {
      workflowId: '00000000-0000-4000-8000-000000000000',
    });
    expect(answer.data).toBeNull();
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { status: 404 },
    });
  });

  it('answers UPSTREAM_BAD_RESPONSE when the 202 has no Location', async () => {
    stack.vro.switches.omitLocation = true;
    try {
      const [answer, sent] = await received(() =>
        stack.gql<any>(runMutation, { workflowId: noop }),
      );
      expect(sent.map((request) => request.method)).toEqual(['POST']);
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
        upstream: { service: 'vro', status: 202 },
      });
    } finally {
      stack.vro.switches.omitLocation = false;
    }
  });

  it('still answers the started execution when it cannot be read back', async () => {
    stack.vro.faults.inject({ fault: { kind: 'malformed' }, method: 'GET', path: /executions\/./ });
    try {
      const [answer, sent] = await received(() =>
        stack.gql<any>(runMutation, {
          workflowId: echo,
          inputs: [{ name: 'count', type: 'number', value: 7 }],
        }),
      );
      expect(sent.map((request) => request.method)).toEqual(['GET', 'POST', 'GET']);
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.runWorkflow.execution).toEqual({
        id: stack.vro.executions.at(-1)?.id,
        workflowId: echo,
        state: 'INITIALIZING',
        startDate: null,
        endDate: null,
        startedBy: null,
        name: null,
        exception: null,
        inputParameters: [{ name: 'count', type: 'number', value: 7 }],
        outputParameters: [],
      });
    } finally {
      stack.vro.faults.clear();
    }
  });

  it('answers UPSTREAM_TIMEOUT when the run is not answered in time', async () => {
    const slow = await startStack({
      env: { UPSTREAM_TIMEOUT_MS: '150' },
    });
    slow.vro.faults.inject({ fault: { kind: 'delay', ms: 3000 } });
    try {
      const answer = await slow.gql<any>(runMutation, { workflowId: noop });
      expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
      expect(slow.vro.requests.map((request) => request.method)).toEqual(['POST']);
    } finally {
      await slow.close();
    }
  });
});
