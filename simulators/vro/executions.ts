import { randomBytes } from 'node:crypto';
import type { SeedPhase, SeedWorkflow } from './seed-workflows.ts';
import { defaultOutput, echoWrapper, plainValue, wrapOutput, wrapperProblem } from './values.ts';

export type ExecutionState =
  'initializing' | SeedPhase | 'suspended' | 'completed' | 'failed' | 'canceled';

/** One run, as the simulator keeps it. */
export interface SimExecution {
  id: string;
  workflowId: string;
  workflowName: string;
  /** The run's sequence number in this simulator (1, 2, ...). */
  run: number;
  startedAt: number;
  startedBy: string;
  /** The parameters of the run request, as received. */
  parameters: Array<{ name: string; type: string; value: unknown }>;
  /** State i lasts from startedAt + i * stepMs. */
  phases: ExecutionState[];
  stepMs: number;
  outcome: 'completed' | 'failed';
  exception: string | undefined;
  canceledAt: number | undefined;
  /** Who canceled the run. */
  canceledBy: string | undefined;
}

/**
 * Checks a run request body as vRO does: `parameters` (not the `parameter`
 * of generated docs) must be a list; every name must be a declared input and
 * every value wrapped as its declared type says. Answers the reason for a 400.
 */
export function runBodyProblem(body: unknown, workflow: SeedWorkflow): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return 'The body must be a JSON object';
  }
  const keys = Object.keys(body);
  const unknownKey = keys.find((key) => key !== 'parameters');
  if (unknownKey !== undefined) return `Unrecognized field "${unknownKey}"`;
  const { parameters } = body as { parameters?: unknown };
  if (!Array.isArray(parameters)) return 'Missing "parameters" list';
  const seen = new Set<string>();
  for (const parameter of parameters as unknown[]) {
    if (typeof parameter !== 'object' || parameter === null) return 'A parameter must be an object';
    const { name, type, scope, value } = parameter as Record<string, unknown>;
    if (typeof name !== 'string') return 'A parameter needs a name';
    const declared = workflow.inputs.find((input) => input.name === name);
    if (declared === undefined) return `Workflow ${workflow.name} has no input parameter "${name}"`;
    if (seen.has(name)) return `Parameter "${name}" is given twice`;
    seen.add(name);
    if (typeof type !== 'string' || type === '') return `Parameter "${name}" needs a type`;
    if (scope !== undefined && scope !== 'local') return `Parameter "${name}": scope must be local`;
    const problem = wrapperProblem(declared.type, value);
    if (problem !== undefined) return `Parameter "${name}" (${declared.type}): ${problem}`;
  }
  return undefined;
}

export function newExecutionId(): string {
  return randomBytes(16).toString('hex');
}

/** The run's plan: initializing, the workflow's phases, then its outcome. */
export function planExecution(
  workflow: SeedWorkflow,
  parameters: SimExecution['parameters'],
  failTrigger: string,
): Pick<SimExecution, 'phases' | 'outcome' | 'exception'> {
  const phases: ExecutionState[] = ['initializing', ...(workflow.phases ?? ['running', 'running'])];
  const triggered = parameters.some((parameter) => plainValue(parameter.value) === failTrigger);
  if (workflow.failure !== undefined) {
    return { phases, outcome: 'failed', exception: workflow.failure };
  }
  if (triggered) {
    return {
      phases,
      outcome: 'failed',
      exception: `Error in (Workflow:${workflow.name} / Scriptable task (item1)#12) Failure requested by input "${failTrigger}"`,
    };
  }
  return { phases, outcome: 'completed', exception: undefined };
}

export function stateAt(execution: SimExecution, now: number): ExecutionState {
  if (execution.canceledAt !== undefined && now >= execution.canceledAt) return 'canceled';
  const step = Math.floor((now - execution.startedAt) / execution.stepMs);
  return execution.phases[Math.max(0, step)] ?? execution.outcome;
}

export function endedAt(execution: SimExecution, now: number): number | undefined {
  if (execution.canceledAt !== undefined && now >= execution.canceledAt)
    return execution.canceledAt;
  const end = execution.startedAt + execution.phases.length * execution.stepMs;
  return now >= end ? end : undefined;
}

/** `GET /workflows/{id}/executions/{executionId}/` as vRO 7 answers it. */
export function renderExecution(
  execution: SimExecution,
  workflow: SeedWorkflow,
  now: number,
  root: string,
): Record<string, unknown> {
  const href = `${root}/workflows/${encodeURIComponent(execution.workflowId)}/executions/${execution.id}/`;
  const state = stateAt(execution, now);
  const end = endedAt(execution, now);
  const given = new Map(execution.parameters.map((parameter) => [parameter.name, parameter]));
  const inputs = workflow.inputs.map((input) => {
    const value = given.get(input.name)?.value;
    return {
      ...(value === undefined ? {} : { value: echoWrapper(value) }),
      type: input.type,
      name: input.name,
      scope: 'local',
    };
  });
  const results = state === 'completed' ? outputsOf(execution, workflow, end ?? now) : {};
  const outputs = workflow.outputs.map((output) => {
    const value = wrapOutput(output.type, results[output.name], root);
    return {
      ...(value === undefined ? {} : { value }),
      type: output.type,
      name: output.name,
      scope: 'local',
    };
  });
  return {
    relations: {
      link: [
        {
          href: `${root}/workflows/${encodeURIComponent(execution.workflowId)}/executions/`,
          rel: 'up',
        },
        { href, rel: 'remove' },
        { href: `${href}logs/`, rel: 'logs' },
        { href: `${href}state/`, rel: 'state' },
      ],
    },
    id: execution.id,
    state,
    name: execution.workflowName,
    href,
    'start-date': execution.startedAt,
    ...(end === undefined ? {} : { 'end-date': end }),
    'started-by': execution.startedBy,
    'input-parameters': inputs,
    'output-parameters': outputs,
    ...(state === 'failed' && execution.exception !== undefined
      ? { 'content-exception': execution.exception }
      : {}),
  };
}

function outputsOf(
  execution: SimExecution,
  workflow: SeedWorkflow,
  end: number,
): Record<string, unknown> {
  const inputs = Object.fromEntries(
    execution.parameters.map((parameter) => [parameter.name, plainValue(parameter.value)]),
  );
  const seeded = workflow.results?.(inputs, execution.run) ?? {};
  return Object.fromEntries(
    workflow.outputs.map((output) => [
      output.name,
      output.name in seeded ? seeded[output.name] : defaultOutput(output.type, execution.run, end),
    ]),
  );
}

/**
 * An item of `GET /workflows/{id}/executions/`: ISO dates in attributes,
 * `currentItemDisplayName` without a value once the run has ended (as in
 * most items of the captured list).
 */
export function renderExecutionLink(
  execution: SimExecution,
  now: number,
  root: string,
): Record<string, unknown> {
  const end = endedAt(execution, now);
  const attributes = [
    { value: execution.id, name: 'id' },
    { value: new Date(execution.startedAt).toISOString(), name: 'startDate' },
    ...(end === undefined ? [] : [{ value: new Date(end).toISOString(), name: 'endDate' }]),
    { value: execution.startedBy, name: 'startedBy' },
    { value: stateAt(execution, now), name: 'state' },
    { value: execution.workflowName, name: 'name' },
    end === undefined
      ? { value: 'Scriptable task', name: 'currentItemDisplayName' }
      : { name: 'currentItemDisplayName' },
  ];
  return {
    attributes,
    href: `${root}/workflows/${encodeURIComponent(execution.workflowId)}/executions/${execution.id}/`,
    rel: 'down',
  };
}
