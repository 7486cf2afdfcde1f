import { endedAt, stateAt, type SimExecution } from './executions.ts';

interface LogEntry {
  at: number;
  severity: 'info' | 'warning' | 'error';
  user: string;
  short: string;
  long: string;
}

/**
 * `GET .../executions/{executionId}/logs/` of a run at `now`, written as the
 * run advances: newest first, epoch-ms `time-stamp`s (7.x), the captured
 * body's wording (vcoworkflows `workflowservice_spec.rb`, Apache-2.0).
 */
export function renderLogs(execution: SimExecution, now: number): Record<string, unknown> {
  const name = execution.workflowName;
  const user = execution.startedBy;
  const entries: LogEntry[] = [
    {
      at: execution.startedAt,
      severity: 'info',
      user,
      short: `Workflow '${name}' has started`,
      long: `Workflow '${name}' has started`,
    },
  ];
  const stoppedAt = execution.canceledAt ?? Infinity;
  for (let step = 1; step < execution.phases.length; step += 1) {
    const at = execution.startedAt + step * execution.stepMs;
    const phase = execution.phases[step];
    const previous = execution.phases[step - 1];
    if (at > now || at >= stoppedAt) break;
    if (phase === 'waiting-signal' && previous !== 'waiting-signal') {
      entries.push({
        at,
        severity: 'info',
        user,
        short: 'Workflow is paused',
        long: `Workflow '${name}' has paused while waiting on signal`,
      });
    } else if (phase === 'waiting' && previous !== 'waiting') {
      entries.push({
        at,
        severity: 'info',
        user,
        short: 'Workflow is waiting for user interaction',
        long: `Workflow '${name}' is waiting for an answer to a user interaction`,
      });
    } else if (phase === 'running' && (previous === 'waiting' || previous === 'waiting-signal')) {
      entries.push({
        at,
        severity: 'info',
        user,
        short: `Workflow '${name}' has resumed`,
        long: `Workflow '${name}' has resumed`,
      });
    } else if (phase === 'running') {
      entries.push({
        at,
        severity: 'info',
        user,
        short: `Scriptable task (item${step}) started`,
        long: `Workflow '${name}' entered item${step}`,
      });
    }
  }
  const state = stateAt(execution, now);
  const end = endedAt(execution, now);
  if (end !== undefined) {
    if (state === 'canceled') {
      const by = execution.canceledBy ?? user;
      entries.push({
        at: end,
        severity: 'warning',
        user: by,
        short: `Workflow '${name}' has been canceled`,
        long: `Workflow '${name}' was canceled by ${by}`,
      });
    } else if (state === 'failed') {
      entries.push({
        at: end,
        severity: 'error',
        user,
        short: `Workflow '${name}' has failed`,
        long: execution.exception ?? `Workflow '${name}' has failed`,
      });
    } else {
      entries.push({
        at: end,
        severity: 'info',
        user,
        short: `Workflow '${name}' has completed`,
        long: `Workflow '${name}' has completed`,
      });
    }
  }
  return {
    logs: entries.toReversed().map((entry) => ({
      entry: {
        severity: entry.severity,
        'time-stamp': entry.at,
        user: entry.user,
        'short-description': entry.short,
        'long-description': entry.long,
      },
    })),
  };
}
