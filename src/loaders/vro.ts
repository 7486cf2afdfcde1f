import DataLoader from 'dataloader';
import type { CallContext } from '../http/upstream-http.ts';
import type { VroClient } from '../upstreams/vro/client.ts';
import type { WorkflowRecord } from '../upstreams/vro/wire.ts';

export interface VroLoaders {
  /** Workflow detail (`GET /workflows/{id}/`); a missing workflow rejects with the upstream 404. */
  workflowById: DataLoader<string, WorkflowRecord>;
  /**
   * The query-result item of a workflow (category, type, canExecute, canEdit:
   * fields the detail lacks), null when none matches. vRO conditions have no
   * OR, so it is one `conditions=id=<id>` call per id.
   */
  workflowSummaryById: DataLoader<string, WorkflowRecord | null>;
}

export function createVroLoaders(client: VroClient, call: CallContext): VroLoaders {
  return {
    workflowById: new DataLoader((ids) => settle(ids.map((id) => client.getWorkflow(call, id)))),
    workflowSummaryById: new DataLoader((ids) =>
      settle(ids.map((id) => client.findWorkflow(call, id))),
    ),
  };
}

/** Results in key order, an Error in place of each failed key. */
function settle<T>(loads: Array<Promise<T>>): Promise<Array<T | Error>> {
  return Promise.all(
    loads.map((load) =>
      load.catch((error: unknown) =>
        error instanceof Error ? error : new Error('The load failed.'),
      ),
    ),
  );
}
