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
  exception: string | undefined;
}

const requestComponent = '6e04a460-4a45-4e16-9603-db2922c24462';
const provisionLinuxVm = 'a9488d99-0bbb-4599-91ce-5dd2b45ed1f0';

/** A past run of `workflowId`, its inputs all strings. */
function pastRun(
  workflowId: string,
  hoursAgo: number,
  startedBy: string,
  inputs: Readonly<Record<string, string>>,
  exception?: string,
): PastRun {
  const parameters = Object.entries(inputs).map(([name, value]) => ({
    name,
    type: 'string',
    value: text(value),
  }));
  return { workflowId, hoursAgo, startedBy, parameters, exception };
}

/**
 * Runs that ended before the simulator started, so that a workflow's history
 * is not empty on a fresh start (the captured history of "Request Component"
 * holds completed and failed runs of several users).
 */
const pastRuns: readonly PastRun[] = [
  pastRun(requestComponent, 50, 'svcacct@example.com', { businessUnit: 'an', image: 'centos65v8' }),
  pastRun(
    requestComponent,
    26,
    'someuser@example.com',
    { businessUnit: 'aw' },
    "Error in (Workflow:Request Component / Compute Inputs (item1)#27) TypeError: Cannot read property 'id' from null",
  ),
  pastRun(requestComponent, 3, 'svcacct@example.com', { businessUnit: 'soi', image: 'win2012std' }),
  pastRun(provisionLinuxVm, 5, 'jane@corp.local', { hostname: 'web-01', environment: 'prod' }),
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
