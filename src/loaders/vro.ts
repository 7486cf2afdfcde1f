import DataLoader from 'dataloader';
import type { CallContext } from '../http/upstream-http.ts';
import type { VroClient } from '../upstreams/vro/client.ts';
import { settleEach } from './settle-each.ts';
import type {
  ExecutionHistoryPage,
  ExecutionRecord,
  FormRecord,
  LogEntryRecord,
  WorkflowRecord,
} from '../upstreams/vro/wire.ts';

/** A run: its workflow id and its id. */
interface ExecutionKey {
  workflowId: string;
  executionId: string;
}

/** A newest-first page of a workflow's runs. */
interface HistoryKey {
  workflowId: string;
  offset: number;
  limit: number;
}

export interface VroLoaders {
  /** Workflow detail (`GET /workflows/{id}/`); a missing workflow rejects with the upstream 404. */
  workflowById: DataLoader<string, WorkflowRecord>;
  /**
   * The query-result item of a workflow (category, type, canExecute, canEdit:
   * fields the detail lacks), null when none matches. vRO conditions have no
   * OR, so it is one `conditions=id=<id>` call per id.
   */
  workflowSummaryById: DataLoader<string, WorkflowRecord | null>;
  /** The form of a workflow (`GET /workflows/{id}/presentation/`). */
  formByWorkflowId: DataLoader<string, FormRecord>;
  /** A page of a workflow's runs, newest first: identical pages are read once. */
  executionHistory: DataLoader<HistoryKey, ExecutionHistoryPage, string>;
  /** A run's detail (`GET .../executions/{executionId}/`), for runs read from a history. */
  executionById: DataLoader<ExecutionKey, ExecutionRecord, string>;
  /** A run's log (`GET .../executions/{executionId}/logs/`). */
  executionLogs: DataLoader<ExecutionKey, LogEntryRecord[], string>;
}

const executionKey = ({ workflowId, executionId }: ExecutionKey): string =>
  JSON.stringify([workflowId, executionId]);

export function createVroLoaders(client: VroClient, call: CallContext): VroLoaders {
  return {
    workflowById: new DataLoader((ids) => settleEach(ids, (id) => client.getWorkflow(call, id))),
    workflowSummaryById: new DataLoader((ids) =>
      settleEach(ids, (id) => client.findWorkflow(call, id)),
    ),
    formByWorkflowId: new DataLoader((ids) =>
      settleEach(ids, (id) => client.getPresentation(call, id)),
    ),
    executionHistory: new DataLoader(
      (keys) =>
        settleEach(keys, ({ workflowId, offset, limit }) =>
          client.recentExecutions(call, workflowId, offset, limit),
        ),
      {
        cacheKeyFn: ({ workflowId, offset, limit }) => JSON.stringify([workflowId, offset, limit]),
      },
    ),
    executionById: new DataLoader(
      (keys) =>
        settleEach(keys, ({ workflowId, executionId }) =>
          client.getExecution(call, workflowId, executionId),
        ),
      { cacheKeyFn: executionKey },
    ),
    executionLogs: new DataLoader(
      (keys) =>
        settleEach(keys, ({ workflowId, executionId }) =>
          client.getExecutionLogs(call, workflowId, executionId),
        ),
      { cacheKeyFn: executionKey },
    ),
  };
}
