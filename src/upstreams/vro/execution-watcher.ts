import {
  Watcher,
  watchKey,
  type CallStats,
  type WatchEvent,
  type WatchFetch,
  type WatcherOptions,
} from '../poller.ts';
import { terminalStates, type ExecutionRecord } from './wire.ts';

export type { CallStats, WatcherOptions };

/** What a watcher emits: the execution, or the error that ended the watch. */
export type ExecutionEvent = WatchEvent<{ execution: ExecutionRecord }>;

/** Reads the execution once (see WatchFetch). */
export type ExecutionFetch = WatchFetch<ExecutionRecord>;

/**
 * Identity of one poller: the execution and whose credentials read it, so
 * that subscribers never share a poll made with another user's credentials.
 */
export function executionWatchKey(
  workflowId: string,
  executionId: string,
  credentialIdentity: string,
): string {
  return watchKey(workflowId, executionId, credentialIdentity);
}

/**
 * What `ExecutionWatcher.nudge` reaches: the pollers of one execution, under
 * every credential that follows it.
 */
export function executionWatchGroup(workflowId: string, executionId: string): string {
  return watchKey(workflowId, executionId);
}

/**
 * One poller per watched execution, shared by all its subscribers (the shared
 * poller of `../poller.ts`): emits on every change of state, ends after a
 * terminal state or the first error.
 */
export class ExecutionWatcher extends Watcher<ExecutionRecord, { execution: ExecutionRecord }> {
  constructor(options: WatcherOptions = {}) {
    super(
      {
        changed: (previous, next) => previous?.state !== next.state,
        isFinal: (execution) => terminalStates.has(execution.state),
        event: (execution) => ({ execution }),
        requestIdPrefix: 'vro-watch',
      },
      options,
    );
  }
}
