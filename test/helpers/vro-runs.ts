import { expect } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import type { Stack } from './stack.ts';

/** What `action` answered, and the requests vRO received meanwhile. */
export async function vroReceived<T>(
  stack: Stack,
  action: () => Promise<T>,
): Promise<[T, RecordedRequest[]]> {
  const mark = stack.vro.requests.length;
  const result = await action();
  return [result, stack.vro.requests.slice(mark)];
}

/** Runs a workflow through the gateway: the new execution's id. */
export async function startRun(
  stack: Stack,
  workflowId: string,
  inputs: unknown[] = [],
): Promise<string> {
  const answer = await stack.gql<any>(
    'mutation($w: ID!, $i: [WorkflowParameterInput!]) { runWorkflow(workflowId: $w, inputs: $i) { execution { id } } }',
    { w: workflowId, i: inputs },
  );
  expect(answer.errors).toBeUndefined();
  return answer.data?.runWorkflow.execution.id as string;
}
