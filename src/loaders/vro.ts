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

/** A workflow at the version a list has just shown. */
export interface WorkflowVersion {
  id: string;
  version: string;
}

/** A newest-first page of a workflow's runs. */
interface HistoryKey {
  workflowId: string;
  offset: number;
  limit: number;
}

export interface VroLoaders {
  /** Workflow detail (`GET /workflows/{id}/`), always read; a missing workflow rejects with the upstream 404. */
  workflowById: DataLoader<string, WorkflowRecord>;
  /** Workflow detail kept from an earlier request whatever its version (`cached`), else a read. */
  workflowKept: DataLoader<string, { workflow: WorkflowRecord; cached: boolean }>;
  /** Workflow detail at a version a list has shown: the one kept across requests for it, else a read. */
  workflowAtVersion: DataLoader<WorkflowVersion, WorkflowRecord, string>;
  /**
   * The query-result item of a workflow (category, type, canExecute, canEdit:
   * fields the detail lacks), null when none matches. vRO conditions have no
   * OR, so it is one `conditions=id=<id>` call per id.
   */
  workflowSummaryById: DataLoader<string, WorkflowRecord | null>;
  /** The form of a workflow (`GET /workflows/{id}/presentation/`), kept across requests per version. */
  formOfWorkflow: DataLoader<WorkflowVersion, FormRecord, string>;
  /** A page of a workflow's runs, newest first: identical pages are read once. */
  executionHistory: DataLoader<HistoryKey, ExecutionHistoryPage, string>;
  /** A run's detail (`GET .../executions/{executionId}/`), for runs read from a history. */
  executionById: DataLoader<ExecutionKey, ExecutionRecord, string>;
  /** A run's log (`GET .../executions/{executionId}/logs/`). */
  executionLogs: DataLoader<ExecutionKey, LogEntryRecord[], string>;
  /**
   * Primes workflowSummaryById with the items of a workflow list (an id
   * already there keeps its value), as `prime` would: only when that loader
   * is first used, most requests never do.
   */
  primeSummaries(workflows: readonly WorkflowRecord[]): void;
}

const versionKey = ({ id, version }: WorkflowVersion): string => JSON.stringify([id, version]);

const executionKey = ({ workflowId, executionId }: ExecutionKey): string =>
  JSON.stringify([workflowId, executionId]);

/** Each loader is made when the request first uses it: an operation uses few of them. */
export function createVroLoaders(client: VroClient, call: CallContext): VroLoaders {
  return new LazyVroLoaders(client, call);
}

class LazyVroLoaders implements VroLoaders {
  readonly #client: VroClient;
  readonly #call: CallContext;
  #workflowById: VroLoaders['workflowById'] | undefined;
  #workflowKept: VroLoaders['workflowKept'] | undefined;
  #workflowAtVersion: VroLoaders['workflowAtVersion'] | undefined;
  #workflowSummaryById: VroLoaders['workflowSummaryById'] | undefined;
  #formOfWorkflow: VroLoaders['formOfWorkflow'] | undefined;
  #executionHistory: VroLoaders['executionHistory'] | undefined;
  #executionById: VroLoaders['executionById'] | undefined;
  #executionLogs: VroLoaders['executionLogs'] | undefined;
  /** Lists to prime workflowSummaryById with once it is made, in the order they came. */
  #summaries: Array<readonly WorkflowRecord[]> | undefined;

  constructor(client: VroClient, call: CallContext) {
    this.#client = client;
    this.#call = call;
  }

  get workflowById(): VroLoaders['workflowById'] {
    const client = this.#client;
    const call = this.#call;
    return (this.#workflowById ??= new DataLoader((ids) =>
      settleEach(ids, (id) => client.getWorkflow(call, id)),
    ));
  }

  get workflowKept(): VroLoaders['workflowKept'] {
    const client = this.#client;
    const call = this.#call;
    return (this.#workflowKept ??= new DataLoader((ids) =>
      settleEach(ids, (id) => client.getWorkflowKept(call, id)),
    ));
  }

  get workflowAtVersion(): VroLoaders['workflowAtVersion'] {
    const client = this.#client;
    const call = this.#call;
    return (this.#workflowAtVersion ??= new DataLoader(
      (keys) => settleEach(keys, ({ id, version }) => client.getWorkflow(call, id, version)),
      { cacheKeyFn: versionKey },
    ));
  }

  get workflowSummaryById(): VroLoaders['workflowSummaryById'] {
    if (this.#workflowSummaryById !== undefined) return this.#workflowSummaryById;
    const client = this.#client;
    const call = this.#call;
    const loader = new DataLoader((ids: readonly string[]) =>
      settleEach(ids, (id) => client.findWorkflow(call, id)),
    );
    for (const list of this.#summaries ?? []) prime(loader, list);
    this.#summaries = undefined;
    this.#workflowSummaryById = loader;
    return loader;
  }

  get formOfWorkflow(): VroLoaders['formOfWorkflow'] {
    const client = this.#client;
    const call = this.#call;
    return (this.#formOfWorkflow ??= new DataLoader(
      (keys) => settleEach(keys, ({ id, version }) => client.getPresentation(call, id, version)),
      { cacheKeyFn: versionKey },
    ));
  }

  get executionHistory(): VroLoaders['executionHistory'] {
    const client = this.#client;
    const call = this.#call;
    return (this.#executionHistory ??= new DataLoader(
      (keys) =>
        settleEach(keys, ({ workflowId, offset, limit }) =>
          client.recentExecutions(call, workflowId, offset, limit),
        ),
      {
        cacheKeyFn: ({ workflowId, offset, limit }) => JSON.stringify([workflowId, offset, limit]),
      },
    ));
  }

  get executionById(): VroLoaders['executionById'] {
    const client = this.#client;
    const call = this.#call;
    return (this.#executionById ??= new DataLoader(
      (keys) =>
        settleEach(keys, ({ workflowId, executionId }) =>
          client.getExecution(call, workflowId, executionId),
        ),
      { cacheKeyFn: executionKey },
    ));
  }

  get executionLogs(): VroLoaders['executionLogs'] {
    const client = this.#client;
    const call = this.#call;
    return (this.#executionLogs ??= new DataLoader(
      (keys) =>
        settleEach(keys, ({ workflowId, executionId }) =>
          client.getExecutionLogs(call, workflowId, executionId),
        ),
      { cacheKeyFn: executionKey },
    ));
  }

  primeSummaries(workflows: readonly WorkflowRecord[]): void {
    if (this.#workflowSummaryById !== undefined) prime(this.#workflowSummaryById, workflows);
    else (this.#summaries ??= []).push(workflows);
  }
}

function prime(
  loader: VroLoaders['workflowSummaryById'],
  workflows: readonly WorkflowRecord[],
): void {
  for (const workflow of workflows) loader.prime(workflow.id, workflow);
}
