/** Wire shapes of the orchestration server (vRO), as upstream-facts.md describes them. */

export interface WireParameterDecl {
  name: string;
  type: string;
  description?: string;
}

export interface WireParameterValue {
  name: string;
  type: string;
  scope?: string;
  value?: Record<string, unknown> | null;
}

/** The mapper of Workflow. Placeholder. */
export interface WorkflowRecord {
  id: string;
}

/** The mapper of WorkflowExecution. Placeholder. */
export interface ExecutionRecord {
  id: string;
  workflowId: string;
}
