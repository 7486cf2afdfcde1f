import { UpstreamBadResponseError } from '../../errors.ts';
import { isVroId } from './ids.ts';
import { toIsoDate } from './unwrap-value.ts';
import {
  executionStates,
  type ExecutionHistoryPage,
  type ExecutionRecord,
  type LogEntryRecord,
  type WireAttribute,
  type WireExecutionState,
  type WireParameterDecl,
  type WireParameterValue,
  type WorkflowPage,
  type WorkflowRecord,
} from './wire.ts';

/** The body as JSON; UPSTREAM_BAD_RESPONSE when it is not. */
export function parseJsonBody(body: string, status: number): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw bad('a body that is not JSON', status);
  }
}

/**
 * `GET /workflows`: only `rel: "down"` links are workflows; their attributes
 * come as `attributes` (7.x) or `attribute` (generated docs), every value a
 * string (`"true"`, `"0.0.33"`) (docs/upstreams.md, vRO).
 */
export function decodeWorkflowPage(json: unknown, status: number): WorkflowPage {
  if (!isObject(json)) throw bad('a workflow query result that is not an object', status);
  const links = json['link'] ?? [];
  if (!Array.isArray(links)) throw bad('a workflow query result whose link is not a list', status);
  const total = toCount(json['total']);
  if (total === undefined) throw bad('a workflow query result without a total', status);
  const workflows: WorkflowRecord[] = [];
  for (const link of links as unknown[]) {
    if (isObject(link) && link['rel'] === 'down') workflows.push(decodeSummary(link, status));
  }
  return { workflows, total };
}

/** The `{name, value}` attributes of a query result item by name; null when it has none. */
function attributesOf(link: Record<string, unknown>): Map<string, string | undefined> | null {
  const list = link['attributes'] ?? link['attribute'];
  if (!Array.isArray(list)) return null;
  const attributes = new Map<string, string | undefined>();
  for (const entry of list as unknown[]) {
    if (isObject(entry) && typeof entry['name'] === 'string') {
      const { name, value } = entry as unknown as WireAttribute;
      attributes.set(name, typeof value === 'string' ? value : undefined);
    }
  }
  return attributes;
}

/** An attribute's value; null when missing or empty. */
function textOf(attributes: Map<string, string | undefined>, name: string): string | null {
  const value = attributes.get(name);
  return value === undefined || value === '' ? null : value;
}

/**
 * The attributes of a workflow item that its record uses; like attributesOf,
 * a later entry of a name wins, and one without a string value reads as
 * missing. One pass, with no Map: the gateway's hot path.
 */
class SummaryAttributes {
  itemHref: string | undefined;
  id: string | undefined;
  name: string | undefined;
  description: string | undefined;
  version: string | undefined;
  customIcon: string | undefined;
  categoryName: string | undefined;
  categoryHref: string | undefined;
  type: string | undefined;
  canExecute: string | undefined;
  canEdit: string | undefined;

  /** Reads the entries of `list` (whatever was read before is forgotten). */
  read(list: unknown[]): void {
    this.itemHref = undefined;
    this.id = undefined;
    this.name = undefined;
    this.description = undefined;
    this.version = undefined;
    this.customIcon = undefined;
    this.categoryName = undefined;
    this.categoryHref = undefined;
    this.type = undefined;
    this.canExecute = undefined;
    this.canEdit = undefined;
    for (const entry of list) {
      if (!isObject(entry)) continue;
      const name = entry['name'];
      if (typeof name !== 'string') continue;
      const raw = entry['value'];
      const value = typeof raw === 'string' ? raw : undefined;
      switch (name) {
        case 'itemHref':
          this.itemHref = value;
          break;
        case 'id':
          this.id = value;
          break;
        case 'name':
          this.name = value;
          break;
        case 'description':
          this.description = value;
          break;
        case 'version':
          this.version = value;
          break;
        case 'customIcon':
          this.customIcon = value;
          break;
        case 'categoryName':
          this.categoryName = value;
          break;
        case 'categoryHref':
          this.categoryHref = value;
          break;
        case 'type':
          this.type = value;
          break;
        case 'canExecute':
          this.canExecute = value;
          break;
        case 'canEdit':
          this.canEdit = value;
          break;
      }
    }
  }
}

/** One for every item: decoding is synchronous, and its values are copied out before the next. */
const itemAttributes = new SummaryAttributes();

/** A value; null when missing or empty. */
function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

function isTrue(value: string | undefined): boolean {
  return value?.toLowerCase() === 'true';
}

function decodeSummary(link: Record<string, unknown>, status: number): WorkflowRecord {
  const list = link['attributes'] ?? link['attribute'];
  if (!Array.isArray(list)) throw bad('a workflow item without attributes', status);
  const attributes = itemAttributes;
  attributes.read(list as unknown[]);
  const id = nonEmpty(attributes.id);
  const { name } = attributes;
  const version = nonEmpty(attributes.version);
  const href = typeof link['href'] === 'string' ? link['href'] : nonEmpty(attributes.itemHref);
  if (id === null || name === undefined || version === null || href === null) {
    throw bad('a workflow item without its id, name, version or href', status);
  }
  return {
    id,
    name,
    description: nonEmpty(attributes.description),
    version,
    href,
    customIcon: isTrue(attributes.customIcon),
    summary: {
      categoryName: nonEmpty(attributes.categoryName),
      categoryHref: nonEmpty(attributes.categoryHref),
      type: nonEmpty(attributes.type),
      canExecute: isTrue(attributes.canExecute),
      canEdit: isTrue(attributes.canEdit),
    },
  };
}

/** `GET /workflows/{id}/`: hyphenated keys, `customized-icon` a real boolean. */
export function decodeWorkflowDetail(json: unknown, status: number): WorkflowRecord {
  if (!isObject(json)) throw bad('a workflow that is not an object', status);
  const { id, name, version, href, description } = json;
  if (
    typeof id !== 'string' ||
    typeof name !== 'string' ||
    typeof version !== 'string' ||
    typeof href !== 'string'
  ) {
    throw bad('a workflow without its id, name, version or href', status);
  }
  return {
    id,
    name,
    description: typeof description === 'string' && description !== '' ? description : null,
    version,
    href,
    customIcon: json['customized-icon'] === true,
    parameters: {
      input: decodeDeclarations(json['input-parameters'], status),
      output: decodeDeclarations(json['output-parameters'], status),
    },
  };
}

function decodeDeclarations(list: unknown, status: number): WireParameterDecl[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw bad('parameters that are not a list', status);
  return list.map((entry: unknown) => {
    if (
      !isObject(entry) ||
      typeof entry['name'] !== 'string' ||
      typeof entry['type'] !== 'string'
    ) {
      throw bad('a parameter without name or type', status);
    }
    const { name, type, description } = entry;
    return typeof description === 'string' && description !== ''
      ? { name, type, description }
      : { name, type };
  });
}

/** `GET /workflows/{id}/executions/{executionId}/`. */
export function decodeExecution(
  json: unknown,
  workflowId: string,
  status: number,
): ExecutionRecord {
  if (!isObject(json)) throw bad('an execution that is not an object', status);
  const { id, state, name } = json;
  if (typeof id !== 'string') throw bad('an execution without an id', status);
  if (!isExecutionState(state)) throw bad('an execution in an unknown state', status);
  const startedBy = json['started-by'];
  const exception = json['content-exception'];
  return {
    id,
    workflowId,
    name: typeof name === 'string' ? name : null,
    state,
    startDate: toIsoDate(json['start-date']),
    endDate: toIsoDate(json['end-date']),
    startedBy: typeof startedBy === 'string' ? startedBy : null,
    inputParameters: decodeValues(json['input-parameters'], status),
    outputParameters: decodeValues(json['output-parameters'], status),
    exception: typeof exception === 'string' && exception !== '' ? exception : null,
  };
}

function decodeValues(list: unknown, status: number): WireParameterValue[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw bad('parameter values that are not a list', status);
  return list.map((entry: unknown) => {
    if (
      !isObject(entry) ||
      typeof entry['name'] !== 'string' ||
      typeof entry['type'] !== 'string'
    ) {
      throw bad('a parameter value without name or type', status);
    }
    const value = entry['value'];
    return {
      name: entry['name'],
      type: entry['type'],
      value: isObject(value) ? value : null,
    };
  });
}

/**
 * `GET /workflows/{id}/executions/`: `relations.total` and `relations.link[]`,
 * where only the links with attributes are runs (`up` and `add` are not);
 * dates are ISO strings there (docs/upstreams.md, vRO).
 */
export function decodeExecutionHistory(
  json: unknown,
  workflowId: string,
  status: number,
): ExecutionHistoryPage {
  const relations = isObject(json) ? json['relations'] : undefined;
  if (!isObject(relations)) throw bad('a run history without relations', status);
  const links = relations['link'] ?? [];
  if (!Array.isArray(links)) throw bad('a run history whose link is not a list', status);
  const executions = links
    .filter(isObject)
    .map((link) => [link, attributesOf(link)] as const)
    .filter(
      (entry): entry is readonly [Record<string, unknown>, Map<string, string | undefined>] =>
        entry[1] !== null,
    )
    .map(([, attributes]) => {
      const id = textOf(attributes, 'id');
      const state = textOf(attributes, 'state');
      if (id === null) throw bad('a run without an id', status);
      if (!isExecutionState(state)) throw bad('a run in an unknown state', status);
      const execution: ExecutionRecord = {
        id,
        workflowId,
        name: textOf(attributes, 'name'),
        state,
        startDate: toIsoDate(textOf(attributes, 'startDate')),
        endDate: toIsoDate(textOf(attributes, 'endDate')),
        startedBy: textOf(attributes, 'startedBy'),
        inputParameters: [],
        outputParameters: [],
        exception: null,
        listed: true,
      };
      return execution;
    });
  const total = toCount(relations['total']) ?? executions.length;
  return { total: Math.max(total, executions.length), executions };
}

/**
 * `GET .../executions/{executionId}/logs/`: `{"logs":[{"entry":{...}}]}` with
 * hyphenated keys; `time-stamp` is epoch ms, a number or a string.
 */
export function decodeLogs(json: unknown, status: number): LogEntryRecord[] {
  const logs = isObject(json) ? (json['logs'] ?? []) : undefined;
  if (!Array.isArray(logs)) throw bad('a log that is not a list', status);
  return logs.map((item: unknown) => {
    const entry = isObject(item) ? item['entry'] : undefined;
    if (!isObject(entry)) throw bad('a log item without its entry', status);
    const text = (key: string): string | null => {
      const value = entry[key];
      return typeof value === 'string' && value !== '' ? value : null;
    };
    const severity = text('severity');
    const message = text('short-description') ?? text('long-description');
    if (severity === null || message === null) {
      throw bad('a log entry without its severity or description', status);
    }
    return {
      severity,
      timestamp: toIsoDate(entry['time-stamp']),
      user: text('user'),
      message,
      detail: text('long-description'),
    };
  });
}

/**
 * The run answers 202 with no body and `Location: .../workflows/{id}/executions/{executionId}/`:
 * the execution id is its last path segment (docs/upstreams.md, vRO).
 */
export function executionIdFromLocation(location: string | undefined, status: number): string {
  if (location === undefined || location.trim() === '') {
    throw bad('a started run without a Location header', status);
  }
  let segments: string[];
  try {
    segments = new URL(location, 'http://location.invalid').pathname
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment));
  } catch {
    throw bad('a Location header that is not a URL', status);
  }
  const executionId = segments.at(-1);
  if (segments.at(-2) !== 'executions' || executionId === undefined || !isVroId(executionId)) {
    throw bad('a Location header that names no execution', status);
  }
  return executionId;
}

function isExecutionState(value: unknown): value is WireExecutionState {
  return typeof value === 'string' && (executionStates as readonly string[]).includes(value);
}

function toCount(value: unknown): number | undefined {
  const count = typeof value === 'string' && value !== '' ? Number(value) : value;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function bad(reason: string, status?: number): UpstreamBadResponseError {
  return new UpstreamBadResponseError('vro', reason, status);
}
