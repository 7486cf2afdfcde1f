import { expect } from 'vitest';
import { readExamples, type Example } from './examples.ts';
import { listen, startStack, type Stack, type StackOptions } from './stack.ts';

/** The gateway on a loopback port (as a client library meets it), with vRO's clock in the test's hands. */
export interface ClientStack {
  stack: Stack;
  /** The GraphQL endpoint: `http://127.0.0.1:<port>/graphql`. */
  endpoint: string;
  close(): Promise<void>;
}

export const clientStep = 1000;

export async function startClientStack(options: StackOptions = {}): Promise<ClientStack> {
  const stack = await startStack({ vro: { manualClock: true, stepMs: clientStep }, ...options });
  const server = await listen(stack.gateway);
  return {
    stack,
    endpoint: `${server.url}/graphql`,
    close: async () => {
      await server.close();
      await stack.close();
    },
  };
}

const examples = readExamples();
const example = (name: string): Example & { variables: Record<string, unknown> } => {
  const found = examples.find((e) => e.name === name);
  if (found === undefined) throw new Error(`no example ${name}`);
  return { ...found, variables: found.variables ?? {} };
};

/** What each client sends: the examples a front-end would (a query, a mutation, the subscription). */
export const listWorkflows = example('list-workflows');
export const runWorkflow = example('run-workflow');
export const followWorkflowRun = example('follow-workflow-run');

/** The variables of follow-workflow-run for a run that `runWorkflow` started. */
export function followVariables(executionId: string): Record<string, unknown> {
  return { ...followWorkflowRun.variables, executionId };
}

/** Checks a ListWorkflows answer against what vRO holds. */
export function expectWorkflowPage(data: unknown): void {
  expect(data).toMatchObject({
    workflows: {
      totalCount: expect.any(Number),
      edges: expect.arrayContaining([
        expect.objectContaining({ node: expect.objectContaining({ name: expect.any(String) }) }),
      ]),
    },
  });
}

/**
 * Checks that vRO received exactly one run of the example's workflow since
 * `from`, lets the run finish (vRO's clock) and returns its execution id.
 */
export function expectRunStarted(stack: Stack, from: number, data: unknown): string {
  const workflowId = runWorkflow.variables['workflowId'] as string;
  const sent = stack.vro.requests.slice(from).filter((r) => r.method === 'POST');
  expect(sent.map((r) => r.rawPath)).toEqual([`/vco/api/workflows/${workflowId}/executions/`]);
  const execution = (data as { runWorkflow: { execution: { id: string; state: string } } })
    .runWorkflow.execution;
  expect(execution.id).toMatch(/\S/);
  stack.vro.advance(10 * clientStep);
  return execution.id;
}

/** The events of a followed run end with the run COMPLETED. */
export function expectCompletedRun(events: unknown[]): void {
  expect(events.length).toBeGreaterThan(0);
  expect(events.at(-1)).toMatchObject({ workflowExecution: { state: 'COMPLETED' } });
}
