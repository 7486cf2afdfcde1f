/**
 * Wire shapes of the orchestration server (vRO), as docs/upstreams.md (vRO) describes
 * them, and the records the resolvers receive (decode.ts turns one into the other).
 */

/** `{name, value}` pair of a query result item; `value` may be missing. */
export interface WireAttribute {
  name: string;
  value?: string;
}

/** Item of `GET /workflows`: `attributes` in 7.x, `attribute` in generated docs. */
export interface WireLink {
  href?: string;
  rel?: string;
  attributes?: WireAttribute[];
  attribute?: WireAttribute[];
}

/** `GET /workflows?conditions=...` */
export interface WireQueryResult {
  link?: WireLink[];
  total?: number;
}

/** A declared input or output (`input-parameters[]` of the workflow detail). */
export interface WireParameterDecl {
  name: string;
  type: string;
  description?: string;
}

/**
 * A typed value: one key naming the wrapper (`string`, `number`, `boolean`,
 * `date`, `array`, `properties`, `secure-string`, `sdk-object`, ...).
 */
export type WireValue = Record<string, unknown>;

/** A parameter with its value (run request, execution inputs and outputs). */
export interface WireParameterValue {
  name: string;
  type: string;
  scope?: string;
  value?: WireValue | null;
}

/** `POST /workflows/{id}/executions` body; real clients send `parameters`. */
export interface WireRunRequest {
  parameters: WireParameterValue[];
}

/** `GET /workflows/{id}/`: hyphenated keys. */
export interface WireWorkflowDetail {
  id: string;
  name: string;
  version: string;
  description?: string;
  href: string;
  'customized-icon'?: boolean;
  'input-parameters'?: WireParameterDecl[];
  'output-parameters'?: WireParameterDecl[];
}

/** `GET /workflows/{id}/executions/{executionId}/`: epoch-ms dates in 7.x. */
export interface WireExecution {
  id: string;
  name?: string;
  state: string;
  'start-date'?: number | string;
  'end-date'?: number | string;
  'started-by'?: string;
  'input-parameters'?: WireParameterValue[];
  'output-parameters'?: WireParameterValue[];
  'content-exception'?: string;
}

/** The fields only the query result carries (the detail lacks them). */
export interface WorkflowSummaryFields {
  categoryName: string | null;
  categoryHref: string | null;
  type: string | null;
  canExecute: boolean;
  canEdit: boolean;
}

/** The mapper of Workflow: from a query result item (`summary`) or from the detail (`parameters`). */
export interface WorkflowRecord {
  id: string;
  name: string;
  description: string | null;
  version: string;
  href: string;
  customIcon: boolean;
  /** Present when the record came from `GET /workflows`. */
  summary?: WorkflowSummaryFields;
  /** Present when the record came from `GET /workflows/{id}/`. */
  parameters?: { input: WireParameterDecl[]; output: WireParameterDecl[] };
}

/** A page of `GET /workflows`. */
export interface WorkflowPage {
  workflows: WorkflowRecord[];
  total: number;
}

export const executionStates = [
  'initializing',
  'running',
  'waiting',
  'waiting-signal',
  'suspended',
  'completed',
  'failed',
  'canceled',
] as const;

export type WireExecutionState = (typeof executionStates)[number];

/** The three states after which an execution never changes. */
export const terminalStates: ReadonlySet<WireExecutionState> = new Set([
  'completed',
  'failed',
  'canceled',
]);

/**
 * The mapper of WorkflowExecution. Dates are ISO strings. A run read from a
 * workflow's history (`listed`) has no parameters nor exception yet: the
 * resolvers read its detail when one of them is selected.
 */
export interface ExecutionRecord {
  id: string;
  workflowId: string;
  name: string | null;
  state: WireExecutionState;
  startDate: string | null;
  endDate: string | null;
  startedBy: string | null;
  inputParameters: WireParameterValue[];
  outputParameters: WireParameterValue[];
  exception: string | null;
  /** True when the record came from `GET /workflows/{id}/executions/` (no parameters nor exception). */
  listed?: boolean;
}

/** A page of `GET /workflows/{id}/executions/`, in the server's order. */
export interface ExecutionHistoryPage {
  /** `relations.total`: every run vRO keeps for the workflow. */
  total: number;
  executions: ExecutionRecord[];
}

/** One field of a workflow's form (the mapper of WorkflowFormField). */
export interface FormFieldRecord {
  name: string;
  type: string;
  label: string | null;
  description: string | null;
  required: boolean;
  hidden: boolean;
  step: string | null;
  group: string | null;
  choices: unknown[] | null;
  defaultValue: unknown;
}

/** `GET /workflows/{id}/presentation/` as the form a front-end draws. */
export interface FormRecord {
  fields: FormFieldRecord[];
}

/** An entry of `GET /workflows/{id}/executions/{executionId}/logs/`. */
export interface LogEntryRecord {
  severity: string;
  timestamp: string | null;
  user: string | null;
  message: string;
  detail: string | null;
}

/** The three exact values vRO accepts for `tagImportMode`. */
export type WireTagImportMode =
  'DoNotImport' | 'ImportAndOverwriteExistingValue' | 'ImportButPreserveExistingValue';
