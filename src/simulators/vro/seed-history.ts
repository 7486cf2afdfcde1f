import { newExecutionId, type SimExecution } from './executions.ts';
import type { SeedWorkflow } from './seed-workflows.ts';

const hour = 3_600_000;
const text = (value: string) => ({ string: { value } });

interface PastRun {
  workflowId: string;
  /** How long before the simulator started. */
  hoursAgo: number;
  startedBy: string;
  parameters: SimExecution['parameters'];
  exception?: string;
}

/**
 * Runs that ended before the simulator started, so that a workflow's history
 * is not empty on a fresh start (the captured history of "Request Component"
 * holds completed and failed runs of several users).
 */
const pastRuns: readonly PastRun[] = [
  {
    workflowId: '6e04a460-4a45-4e16-9603-db2922c24462',
    hoursAgo: 50,
    startedBy: 'svcacct@example.com',
    parameters: [
      { name: 'businessUnit', type: 'string', value: text('an') },
      { name: 'image', type: 'string', value: text('centos65v8') },
    ],
  },
  {
    workflowId: '6e04a460-4a45-4e16-9603-db2922c24462',
    hoursAgo: 26,
    startedBy: 'someuser@example.com',
    parameters: [{ name: 'businessUnit', type: 'string', value: text('aw') }],
    exception:
      "Error in (Workflow:Request Component / Compute Inputs (item1)#27) TypeError: Cannot read property 'id' from null",
  },
  {
    workflowId: '6e04a460-4a45-4e16-9603-db2922c24462',
    hoursAgo: 3,
    startedBy: 'svcacct@example.com',
    parameters: [
      { name: 'businessUnit', type: 'string', value: text('soi') },
      { name: 'image', type: 'string', value: text('win2012std') },
    ],
  },
  {
    workflowId: 'a9488d99-0bbb-4599-91ce-5dd2b45ed1f0',
    hoursAgo: 5,
    startedBy: 'jane@corp.local',
    parameters: [
      { name: 'hostname', type: 'string', value: text('web-01') },
      { name: 'environment', type: 'string', value: text('prod') },
    ],
  },
];

/** The past runs of the workflows at hand, oldest first, as of `now`. */
export function seedHistory(
  now: number,
  workflows: ReadonlyMap<string, SeedWorkflow>,
  stepMs: number,
): SimExecution[] {
  return pastRuns.flatMap((past, index) => {
    const workflow = workflows.get(past.workflowId);
    if (workflow === undefined) return [];
    const execution: SimExecution = {
      id: newExecutionId(),
      workflowId: workflow.id,
      workflowName: workflow.name,
      run: -(pastRuns.length - index),
      startedAt: now - past.hoursAgo * hour,
      startedBy: past.startedBy,
      parameters: past.parameters,
      stepMs,
      canceledAt: undefined,
      canceledBy: undefined,
      phases: ['initializing', ...(workflow.phases ?? ['running', 'running'])],
      outcome: past.exception === undefined ? 'completed' : 'failed',
      exception: past.exception,
    };
    return [execution];
  });
}
