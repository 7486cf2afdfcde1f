import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startStack, type Stack } from '../helpers/stack.ts';
import { vroReceived } from '../helpers/vro-runs.ts';

const fiftyWithInputs =
  '{ workflows(first: 50) { nodes { id version inputParameters { name } } } }';
const withForms = '{ workflows(first: 3) { nodes { id form { fields { name } } } } }';

const stacks: Stack[] = [];
async function stack(env: Record<string, string> = {}): Promise<Stack> {
  const s = await startStack({ env, vro: { users } });
  stacks.push(s);
  return s;
}
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

const users = [{ username: 'alice', password: 'alice-pw' }];
const alice = { 'X-Vro-Authorization': `Basic ${btoa('alice:alice-pw')}` };

type Nodes = Array<{ id: string; version: string; inputParameters: Array<{ name: string }> }>;

/** Runs the 50-workflow query: its nodes, and the paths vRO received for it. */
async function listWithInputs(
  s: Stack,
  headers?: Record<string, string>,
): Promise<[Nodes, string[]]> {
  const [answer, sent] = await vroReceived(s, () =>
    s.gql<{ workflows: { nodes: Nodes } }>(fiftyWithInputs, undefined, headers),
  );
  expect(answer.errors).toBeUndefined();
  return [answer.data?.workflows.nodes ?? [], paths(sent)];
}

const paths = (sent: RecordedRequest[]): string[] => sent.map((request) => request.path);
const detailPath = (id: string): string => `/vco/api/workflows/${id}/`;

async function metricLines(s: Stack, prefix: string): Promise<string[]> {
  const text = await (await s.fetch('/metrics')).text();
  return text.split('\n').filter((line) => line.startsWith(prefix));
}

describe('the workflow detail cache', () => {
  it('answers a repeated list of 50 workflows with their inputs with one vRO call', async () => {
    const s = await stack();
    const [first, firstCalls] = await listWithInputs(s);
    expect(first).toHaveLength(50);
    expect(firstCalls).toHaveLength(51);
    expect(firstCalls.filter((path) => path === '/vco/api/workflows')).toHaveLength(1);

    const [second, secondCalls] = await listWithInputs(s);
    expect(secondCalls).toEqual(['/vco/api/workflows']);
    expect(second).toEqual(first);
    expect(second.some((node) => node.inputParameters.length > 0)).toBe(true);

    expect(
      (await metricLines(s, 'gateway_cache_lookups_total{cache="vro_workflow_details"')).sort(),
    ).toEqual([
      'gateway_cache_lookups_total{cache="vro_workflow_details",result="hit"} 50',
      'gateway_cache_lookups_total{cache="vro_workflow_details",result="miss"} 50',
    ]);
    expect(await metricLines(s, 'gateway_cache_entries{cache="vro_workflow_details"}')).toEqual([
      'gateway_cache_entries{cache="vro_workflow_details"} 50',
    ]);
  });

  it('reads again the detail of the one workflow a list shows at a new version', async () => {
    const s = await stack();
    const [first] = await listWithInputs(s);
    const changed = first.find((node) => node.inputParameters.length > 0)!;
    const seed = s.vro.getWorkflow(changed.id)!;
    s.vro.putWorkflow({
      ...seed,
      version: '9.9.9',
      inputs: [...seed.inputs, { name: 'addedInput', type: 'string' }],
    });

    const [second, calls] = await listWithInputs(s);
    expect(calls).toEqual(['/vco/api/workflows', detailPath(changed.id)]);
    const node = second.find((candidate) => candidate.id === changed.id)!;
    expect(node.version).toBe('9.9.9');
    expect(node.inputParameters.map((input) => input.name)).toContain('addedInput');

    const [, third] = await listWithInputs(s);
    expect(third).toEqual(['/vco/api/workflows']);
  });

  it('drops a kept detail when vRO answers 404 for the workflow', async () => {
    const s = await stack();
    const [first] = await listWithInputs(s);
    const gone = first[0]!;
    const seed = s.vro.getWorkflow(gone.id)!;
    s.vro.deleteWorkflow(gone.id);
    const [answer, sent] = await vroReceived(s, () =>
      s.gql<any>('query($id: ID!) { workflow(id: $id) { id } }', { id: gone.id }),
    );
    expect(answer.data).toEqual({ workflow: null });
    expect(paths(sent)).toEqual([detailPath(gone.id)]);

    // back at the same version, but not the same workflow: read again, not served from before
    s.vro.putWorkflow({ ...seed, inputs: [{ name: 'onlyInput', type: 'string' }] });
    const [second, calls] = await listWithInputs(s);
    expect(calls).toEqual(['/vco/api/workflows', detailPath(gone.id)]);
    expect(second.find((node) => node.id === gone.id)?.inputParameters).toEqual([
      { name: 'onlyInput' },
    ]);
  });

  it('reads every detail again once WORKFLOW_DETAIL_CACHE_TTL_MS has passed', async () => {
    const s = await stack({ WORKFLOW_DETAIL_CACHE_TTL_MS: '60000' });
    vi.useFakeTimers({ toFake: ['Date'] });
    const [, firstCalls] = await listWithInputs(s);
    expect(firstCalls).toHaveLength(51);
    vi.setSystemTime(Date.now() + 59_000);
    const [, withinCalls] = await listWithInputs(s);
    expect(withinCalls).toHaveLength(1);
    vi.setSystemTime(Date.now() + 60_000);
    const [, afterCalls] = await listWithInputs(s);
    expect(afterCalls).toHaveLength(51);
  });

  it('keeps details apart per credential: a user reads their own', async () => {
    const s = await stack();
    await listWithInputs(s);
    const [, userCalls] = await listWithInputs(s, alice);
    expect(userCalls).toHaveLength(51);
    const userDetail = s.vro.requests.at(-1)!;
    expect(userDetail.headers.authorization).toBe(alice['X-Vro-Authorization']);
    const [, again] = await listWithInputs(s, alice);
    expect(again).toHaveLength(1);
  });

  it('keeps a workflow read by id for later lists, but always reads it by id', async () => {
    const s = await stack();
    const [first] = await listWithInputs(s);
    const id = first[1]!.id;
    const byId = 'query($id: ID!) { workflow(id: $id) { version inputParameters { name } } }';
    for (let round = 0; round < 2; round++) {
      const [answer, sent] = await vroReceived(s, () => s.gql<any>(byId, { id }));
      expect(answer.errors).toBeUndefined();
      expect(paths(sent)).toEqual([detailPath(id)]);
    }
    const [, calls] = await listWithInputs(s);
    expect(calls).toEqual(['/vco/api/workflows']);
  });

  it('keeps workflow forms per version like details', async () => {
    const s = await stack();
    const [first, firstSent] = await vroReceived(s, () => s.gql<any>(withForms));
    expect(first.errors).toBeUndefined();
    expect(paths(firstSent).filter((path) => path.endsWith('/presentation/'))).toHaveLength(3);
    const [second, secondSent] = await vroReceived(s, () => s.gql<any>(withForms));
    expect(second.data).toEqual(first.data);
    expect(paths(secondSent)).toEqual(['/vco/api/workflows']);

    const changedId = (first.data?.workflows.nodes[0] as { id: string }).id;
    s.vro.putWorkflow({ ...s.vro.getWorkflow(changedId)!, version: '9.9.9' });
    const [, thirdSent] = await vroReceived(s, () => s.gql<any>(withForms));
    expect(paths(thirdSent)).toEqual([
      '/vco/api/workflows',
      `/vco/api/workflows/${changedId}/presentation/`,
    ]);
  });

  it('is off with WORKFLOW_DETAIL_CACHE_TTL_MS=0: every list reads every detail', async () => {
    const s = await stack({ WORKFLOW_DETAIL_CACHE_TTL_MS: '0' });
    await listWithInputs(s);
    const [, calls] = await listWithInputs(s);
    expect(calls).toHaveLength(51);
    expect(await metricLines(s, 'gateway_cache_entries{cache="vro_workflow_details"}')).toEqual([]);
  });
});

describe('the input check of a run', () => {
  const run =
    'mutation($w: ID!, $i: [WorkflowParameterInput!]) { runWorkflow(workflowId: $w, inputs: $i) { execution { id } } }';

  it('checks inputs against a kept detail without reading it again', async () => {
    const s = await stack();
    const [first] = await listWithInputs(s);
    const workflow = first.find((node) =>
      s.vro.getWorkflow(node.id)!.inputs.some((input) => input.type === 'string'),
    )!;
    const input = s.vro.getWorkflow(workflow.id)!.inputs.find((i) => i.type === 'string')!;

    const [refused, refusedSent] = await vroReceived(s, () =>
      s.gql<any>(run, { w: workflow.id, i: [{ name: input.name, type: 'number', value: 1 }] }),
    );
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    // the refusal is confirmed on a fresh read, and nothing is run
    expect(paths(refusedSent)).toEqual([detailPath(workflow.id)]);

    const [accepted, acceptedSent] = await vroReceived(s, () =>
      s.gql<any>(run, { w: workflow.id, i: [{ name: input.name, type: 'string', value: 'x' }] }),
    );
    expect(accepted.errors).toBeUndefined();
    expect(paths(acceptedSent)[0]).toBe(`/vco/api/workflows/${workflow.id}/executions/`);
    expect(acceptedSent.some((request) => request.path === detailPath(workflow.id))).toBe(false);
  });

  it('accepts an input the workflow gained after its detail was kept', async () => {
    const s = await stack();
    const [first] = await listWithInputs(s);
    const id = first[0]!.id;
    const seed = s.vro.getWorkflow(id)!;
    s.vro.putWorkflow({ ...seed, inputs: [...seed.inputs, { name: 'newer', type: 'string' }] });

    const [answer, sent] = await vroReceived(s, () =>
      s.gql<any>(run, { w: id, i: [{ name: 'newer', type: 'string', value: 'x' }] }),
    );
    expect(answer.errors).toBeUndefined();
    expect(paths(sent).slice(0, 2)).toEqual([
      detailPath(id),
      `/vco/api/workflows/${id}/executions/`,
    ]);
  });
});
