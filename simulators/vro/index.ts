import { createHash } from 'node:crypto';
import { STATUS_CODES, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import {
  hasBasicAuth,
  sendEmpty,
  sendText,
  startSimServer,
  type RecordedRequest,
  type SimObserved,
} from '../sim-server.ts';
import { brokenJson } from '../faults.ts';
import { conditionFields, matchesConditions, parseConditions } from './conditions.ts';
import {
  newExecutionId,
  planExecution,
  renderExecution,
  renderExecutionLink,
  runBodyProblem,
  stateAt,
  type SimExecution,
} from './executions.ts';
import { toJavaJson } from './java-json.ts';
import { renderLogs } from './logs.ts';
import { parseMultipart } from './multipart.ts';
import { readPackage } from './package-reader.ts';
import { renderPresentation } from './presentations.ts';
import { seedHistory } from './seed-history.ts';
import { seedCategories, seedWorkflows, type SeedWorkflow } from './seed-workflows.ts';

export type { SeedWorkflow } from './seed-workflows.ts';
export type { SimExecution } from './executions.ts';

type Attribute = { name: string; value: string };
/** A query result's attributes, as sent and by name (for conditions and sorting). */
type Attributes = { attributes: Attribute[]; byName: Record<string, string> };
/** The order of `String.prototype.localeCompare`, without a collator per comparison. */
const collator = new Intl.Collator();

/** Behaviour switches (faults are the fault plan's); tests flip them at any time. */
export interface VroSwitches {
  /** Answer a run's 202 without its Location header. */
  omitLocation: boolean;
  /**
   * Whether `GET /workflows/{id}/executions/` honours `maxResult` and
   * `startIndex` (unconfirmed on the real route; default: honoured).
   */
  executionPaging: 'honor' | 'ignore';
}

export interface VroSimulatorOptions {
  port?: number;
  username?: string;
  password?: string;
  /** How long each state of a run lasts (default 2000 ms). */
  stepMs?: number;
  /** The clock moves only through advance() (default: real time). */
  manualClock?: boolean;
  /** Replaces the seeded workflows. */
  workflows?: readonly SeedWorkflow[];
  /** A run with an input of this value fails (default `simulate-failure`). */
  failTrigger?: string;
  switches?: Partial<VroSwitches>;
  /** More accounts vRO's directory knows besides the gateway's (per-user credential tests). */
  users?: ReadonlyArray<{ username: string; password: string }>;
  /**
   * vRO authenticating through vRA: the user a vRA bearer token belongs to,
   * undefined when vRA would refuse it (default: bearer tokens are refused).
   */
  bearerUser?: (token: string) => string | undefined;
  /**
   * vRO 8 joined to vRA 8: only vRA's bearer tokens (`bearerUser`) are
   * accepted, Basic is refused with 401 even for the accounts above.
   */
  vraTokensOnly?: boolean;
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
  /** Seed runs that ended before the start into the workflows' histories (default true). */
  history?: boolean;
}

/** A package the simulator imported. */
export interface ImportedPackage {
  name: string;
  fileName: string | undefined;
  bytes: Buffer;
  overwrite: boolean;
  importConfigurationAttributeValues: boolean;
  tagImportMode: string;
  workflowIds: string[];
}

export interface VroSimulator extends SimObserved {
  /** API root the gateway is configured with (`http://127.0.0.1:<port>/vco/api`). */
  readonly url: URL;
  readonly username: string;
  readonly password: string;
  readonly switches: VroSwitches;
  /** Every run started through the API, oldest first (the seeded history is not in it). */
  readonly executions: readonly SimExecution[];
  /** Every package imported, oldest first. */
  readonly imports: readonly ImportedPackage[];
  /** The simulator's clock (epoch ms). */
  now(): number;
  /** Moves the manual clock forward. */
  advance(ms: number): void;
  /** Adds or replaces a workflow. */
  putWorkflow(workflow: SeedWorkflow): void;
  getWorkflow(id: string): SeedWorkflow | undefined;
  /** Deletes a workflow (its detail then answers 404); false when there is none. */
  deleteWorkflow(id: string): boolean;
  /** Cancels a run now; false when there is no such run. */
  cancelExecution(executionId: string): boolean;
  close(): Promise<void>;
}

const rootPath = '/vco/api';
const tagImportModes = new Set([
  'DoNotImport',
  'ImportAndOverwriteExistingValue',
  'ImportButPreserveExistingValue',
]);

/**
 * A strict vRO 7 simulator: Basic auth on everything under the API root but
 * `GET /`, JSON only (Accept: application/json), query conditions, workflow
 * detail and presentation, runs that move through their states on the
 * simulator's clock (with a seeded history, a log written as they advance,
 * and cancel), and package import.
 */
export async function startVroSimulator(options: VroSimulatorOptions = {}): Promise<VroSimulator> {
  const username = options.username ?? 'vcoadmin';
  const password = options.password ?? 'vcoadmin';
  const stepMs = options.stepMs ?? 2000;
  const failTrigger = options.failTrigger ?? 'simulate-failure';
  const switches: VroSwitches = {
    omitLocation: false,
    executionPaging: 'honor',
    ...options.switches,
  };
  const workflows = new Map<string, SeedWorkflow>();
  for (const workflow of options.workflows ?? seedWorkflows) workflows.set(workflow.id, workflow);
  const executions: SimExecution[] = [];
  const imports: ImportedPackage[] = [];
  let manualNow = Date.now();
  const now = (): number => (options.manualClock === true ? manualNow : Date.now());
  const past = options.history === false ? [] : seedHistory(now(), workflows, stepMs);
  /** A workflow's runs, seeded history included, oldest first. */
  const runsOf = (workflowId: string): SimExecution[] =>
    [...past, ...executions].filter((execution) => execution.workflowId === workflowId);
  let root = '';
  const accounts = [{ username, password }, ...(options.users ?? [])];
  /** The user the request authenticates as, or undefined. */
  const authenticated = (headers: IncomingHttpHeaders): string | undefined => {
    const bearer = /^Bearer (\S+)$/.exec(headers.authorization ?? '')?.[1];
    if (bearer !== undefined) return options.bearerUser?.(bearer);
    if (options.vraTokensOnly === true) return undefined;
    return accounts.find((a) => hasBasicAuth(headers, a.username, a.password))?.username;
  };

  const sendJsonBody = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    sendText(response, status, toJavaJson(body), 'application/json', headers);
  };
  const sendError = (response: ServerResponse, status: number, message: string): void =>
    sendJsonBody(response, status, errorBody(status, message));

  const buildAttributes = (workflow: SeedWorkflow): Attribute[] => {
    const href = `${root}/workflows/${encodeURIComponent(workflow.id)}/`;
    return [
      { value: href, name: 'itemHref' },
      { value: workflow.id, name: 'id' },
      { value: workflow.category, name: 'categoryName' },
      { value: String(workflow.canExecute ?? true), name: 'canExecute' },
      {
        value: `${root}/catalog/System/WorkflowCategory/${categoryId(workflow.category)}/`,
        name: 'categoryHref',
      },
      { value: workflow.description ?? '', name: 'description' },
      { value: workflow.name, name: 'name' },
      { value: String(workflow.customIcon ?? false), name: 'customIcon' },
      { value: 'Workflow', name: 'type' },
      { value: String(workflow.canEdit ?? true), name: 'canEdit' },
      { value: workflow.version, name: 'version' },
    ].map(({ name, value }) => ({ value, name }));
  };
  /** A workflow's query attributes, built once per workflow record (records are replaced, never mutated). */
  const attributeCache = new WeakMap<SeedWorkflow, Attributes>();
  const attributesOf = (workflow: SeedWorkflow): Attributes => {
    let cached = attributeCache.get(workflow);
    if (cached === undefined) {
      const attributes = buildAttributes(workflow);
      cached = {
        attributes,
        byName: Object.fromEntries(attributes.map(({ name, value }) => [name, value])),
      };
      attributeCache.set(workflow, cached);
    }
    return cached;
  };

  /** Every workflow with its attributes, ascending by `field` then id; kept until a workflow changes. */
  const sortedCache = new Map<string, Array<Attributes & { workflow: SeedWorkflow }>>();
  const sortedBy = (field: string): Array<Attributes & { workflow: SeedWorkflow }> => {
    let sorted = sortedCache.get(field);
    if (sorted === undefined) {
      sorted = [...workflows.values()]
        .map((workflow) => ({ workflow, ...attributesOf(workflow) }))
        .map((item) => ({ item, key: (item.byName[field] ?? '') + item.workflow.id }))
        .sort((a, b) => collator.compare(a.key, b.key))
        .map(({ item }) => item);
      sortedCache.set(field, sorted);
    }
    return sorted;
  };
  const putWorkflow = (workflow: SeedWorkflow): void => {
    workflows.set(workflow.id, workflow);
    sortedCache.clear();
  };

  const queryWorkflows = (request: RecordedRequest, response: ServerResponse): void => {
    const raw = request.query.get('conditions');
    let conditions: ReturnType<typeof parseConditions> = [];
    if (raw !== null) {
      conditions = parseConditions(raw);
      if ('error' in conditions) return sendError(response, 400, conditions.error);
    }
    const maxResult = nonNegative(request.query.get('maxResult'));
    const startIndex = nonNegative(request.query.get('startIndex'));
    if (maxResult === null || maxResult === 0) {
      return sendError(response, 400, 'maxResult must be a positive integer');
    }
    if (startIndex === null) return sendError(response, 400, 'startIndex must be an integer >= 0');
    const sortOrders = request.query.get('sortOrders');
    const sortField = sortOrders?.replace(/^[+-]/, '') ?? 'name';
    if (!conditionFields.has(sortField)) {
      return sendError(response, 400, `Unknown sort field '${sortField}'`);
    }
    const direction = sortOrders?.startsWith('-') === true ? -1 : 1;
    const sorted = sortedBy(sortField);
    const matching = (direction === 1 ? sorted : sorted.toReversed()).filter(({ byName }) =>
      matchesConditions(byName, conditions),
    );
    const page = matching.slice(startIndex ?? 0, (startIndex ?? 0) + (maxResult ?? Infinity));
    sendJsonBody(response, 200, {
      link: page.map(({ workflow, attributes }) => ({
        attributes,
        href: `${root}/workflows/${encodeURIComponent(workflow.id)}/`,
        rel: 'down',
      })),
      total: matching.length,
    });
  };

  const workflowDetail = (workflow: SeedWorkflow): Record<string, unknown> => {
    const href = `${root}/workflows/${encodeURIComponent(workflow.id)}/`;
    const declaration = ({ name, type, description }: SeedWorkflow['inputs'][number]) =>
      description === undefined ? { name, type } : { name, type, description };
    return {
      'output-parameters': workflow.outputs.map(declaration),
      relations: {
        link: [
          {
            rel: 'up',
            href: `${root}/inventory/System/Workflows/${encodeURIComponent(workflow.category)}/`,
          },
          ...['executions', 'presentation', 'tasks', 'icon', 'schema', 'permissions'].map(
            (rel) => ({ rel, href: `${href}${rel}/` }),
          ),
        ],
      },
      id: workflow.id,
      name: workflow.name,
      version: workflow.version,
      description: workflow.description ?? '',
      href,
      'customized-icon': workflow.customIcon ?? false,
      'input-parameters': workflow.inputs.map(declaration),
    };
  };

  const startRun = (
    request: RecordedRequest,
    response: ServerResponse,
    workflow: SeedWorkflow,
    user: string,
  ): void => {
    if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
      return sendError(response, 415, 'Content-Type must be application/json');
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      return sendError(response, 400, 'The body is not valid JSON');
    }
    const problem = runBodyProblem(body, workflow);
    if (problem !== undefined) return sendError(response, 400, problem);
    const parameters = (body as { parameters: SimExecution['parameters'] }).parameters;
    const execution: SimExecution = {
      id: newExecutionId(),
      workflowId: workflow.id,
      workflowName: workflow.name,
      run: executions.length + 1,
      startedAt: now(),
      startedBy: user,
      parameters,
      stepMs,
      canceledAt: undefined,
      canceledBy: undefined,
      ...planExecution(workflow, parameters, failTrigger),
    };
    executions.push(execution);
    const location = `${root}/workflows/${encodeURIComponent(workflow.id)}/executions/${execution.id}/`;
    sendEmpty(response, 202, switches.omitLocation ? {} : { location });
  };

  /**
   * A workflow's runs, oldest first (as in the captured list). Paging by
   * `maxResult`/`startIndex` is unconfirmed on this route: honoured and
   * checked like `GET /workflows`, or ignored (switch `executionPaging`).
   */
  const listExecutions = (
    request: RecordedRequest,
    response: ServerResponse,
    workflow: SeedWorkflow,
  ): void => {
    const runs = runsOf(workflow.id);
    let page = runs;
    if (switches.executionPaging === 'honor') {
      const maxResult = nonNegative(request.query.get('maxResult'));
      const startIndex = nonNegative(request.query.get('startIndex'));
      if (maxResult === null || maxResult === 0) {
        return sendError(response, 400, 'maxResult must be a positive integer');
      }
      if (startIndex === null) {
        return sendError(response, 400, 'startIndex must be an integer >= 0');
      }
      page = runs.slice(startIndex ?? 0, (startIndex ?? 0) + (maxResult ?? Infinity));
    }
    const href = `${root}/workflows/${encodeURIComponent(workflow.id)}/`;
    sendJsonBody(response, 200, {
      relations: {
        total: runs.length,
        link: [
          { href, rel: 'up' },
          { href: `${href}executions/`, rel: 'add' },
          ...page.map((execution) => renderExecutionLink(execution, now(), root)),
        ],
      },
    });
  };

  /**
   * `DELETE .../executions/{executionId}/state`: 204 and the run is canceled.
   * A run that has ended cannot be; the real status is unconfirmed (400 or
   * 409): this simulator answers 400 with vRO's usual error body.
   */
  const cancelRun = (response: ServerResponse, execution: SimExecution, user: string): void => {
    const state = stateAt(execution, now());
    if (state === 'completed' || state === 'failed' || state === 'canceled') {
      return sendError(
        response,
        400,
        `Workflow execution '${execution.id}' is ${state} and cannot be canceled`,
      );
    }
    execution.canceledAt = now();
    execution.canceledBy = user;
    sendEmpty(response, 204);
  };

  const importPackage = (request: RecordedRequest, response: ServerResponse): void => {
    const flag = (name: string): boolean | null | undefined => {
      const value = request.query.get(name);
      if (value === null) return undefined;
      return value === 'true' ? true : value === 'false' ? false : null;
    };
    const overwrite = flag('overwrite');
    const importValues = flag('importConfigurationAttributeValues');
    if (overwrite === null || importValues === null) {
      return sendError(
        response,
        400,
        'overwrite and importConfigurationAttributeValues are true or false',
      );
    }
    const tagImportMode = request.query.get('tagImportMode') ?? 'DoNotImport';
    if (!tagImportModes.has(tagImportMode)) {
      return sendError(response, 400, `Invalid tagImportMode '${tagImportMode}'`);
    }
    const parts = parseMultipart(request.headers['content-type'], request.body);
    if ('error' in parts) return sendError(response, 415, parts.error);
    const filePart = parts.find((part) => part.name === 'file');
    if (filePart === undefined) return sendError(response, 400, "No multipart part named 'file'");
    const content = readPackage(filePart.content);
    if ('error' in content) return sendError(response, 400, content.error);
    if (overwrite !== true) {
      for (const packaged of content.workflows) {
        const current = workflows.get(packaged.id);
        if (current !== undefined && compareVersions(packaged.version, current.version) < 0) {
          return sendError(
            response,
            409,
            `Workflow '${packaged.name}' (${packaged.id}) version ${packaged.version} in package ` +
              `${content.name} is older than version ${current.version} on the server`,
          );
        }
      }
    }
    for (const packaged of content.workflows) {
      const current = workflows.get(packaged.id);
      putWorkflow({
        id: packaged.id,
        name: packaged.name,
        version: packaged.version,
        category: packaged.category ?? current?.category ?? content.name,
        inputs: packaged.inputs,
        outputs: packaged.outputs,
        ...(packaged.description === undefined ? {} : { description: packaged.description }),
      });
    }
    imports.push({
      name: content.name,
      fileName: filePart.filename,
      bytes: Buffer.from(filePart.content),
      overwrite: overwrite ?? false,
      importConfigurationAttributeValues: importValues ?? false,
      tagImportMode,
      workflowIds: content.workflows.map((workflow) => workflow.id),
    });
    sendEmpty(response, 201);
  };

  const listPackages = (response: ServerResponse): void => {
    const names = [...new Set(imports.map((entry) => entry.name))].sort();
    sendJsonBody(response, 200, {
      link: names.map((name) => ({
        attributes: [
          { value: name, name: 'name' },
          { value: `${root}/packages/${encodeURIComponent(name)}/`, name: 'itemHref' },
        ],
        href: `${root}/packages/${encodeURIComponent(name)}/`,
        rel: 'down',
      })),
      total: names.length,
    });
  };

  const handle = (request: RecordedRequest, response: ServerResponse): void => {
    if (request.rawPath !== rootPath && !request.rawPath.startsWith(`${rootPath}/`)) {
      return sendText(response, 404, 'Not Found', 'text/plain');
    }
    const segments = pathSegments(request.rawPath.slice(rootPath.length));
    if (segments === null) return sendError(response, 400, 'Malformed path');
    if (segments.length === 0 && request.method === 'GET') {
      return sendJsonBody(response, 200, {
        service: ['workflows', 'packages', 'about'].map((name) => ({
          href: `${root}/${name}/`,
          rel: 'down',
          name,
        })),
      });
    }
    const user = authenticated(request.headers);
    if (user === undefined) {
      return sendText(
        response,
        401,
        '<html><head><title>Error</title></head><body>Unauthorized</body></html>',
        'text/html;charset=utf-8',
        { 'www-authenticate': 'Basic realm="vco"' },
      );
    }
    const method = request.method;
    const wantsJson = /\bapplication\/json\b/i.test(request.headers.accept ?? '');
    const get = (answer: () => void): void => {
      if (method !== 'GET') return sendError(response, 405, `${method} is not allowed here`);
      if (!wantsJson)
        return sendError(response, 406, 'This server answers application/json only when asked to');
      answer();
    };
    const [first, workflowId, third, executionId, fifth, ...rest] = segments;
    if (first === 'about' && segments.length === 1) {
      return get(() =>
        sendJsonBody(response, 200, {
          version: '7.6.0.17004498',
          'build-number': '17004498',
          'build-date': '2020-11-04T09:08:06Z',
          'api-version': '6.0.0',
        }),
      );
    }
    if (first === 'packages' && segments.length === 1) {
      if (method === 'POST') return importPackage(request, response);
      return get(() => listPackages(response));
    }
    if (first !== 'workflows' || rest.length > 0) return sendError(response, 404, 'Not found');
    if (workflowId === undefined) return get(() => queryWorkflows(request, response));
    const workflow = workflows.get(workflowId);
    if (workflow === undefined) {
      return sendError(response, 404, `Workflow with id '${workflowId}' not found`);
    }
    if (third === undefined)
      return get(() => sendJsonBody(response, 200, workflowDetail(workflow)));
    if (third === 'presentation' && executionId === undefined) {
      return get(() => sendJsonBody(response, 200, renderPresentation(workflow, root)));
    }
    if (third !== 'executions') return sendError(response, 404, 'Not found');
    if (executionId === undefined) {
      if (method === 'POST') return startRun(request, response, workflow, user);
      return get(() => listExecutions(request, response, workflow));
    }
    const execution = runsOf(workflow.id).find((candidate) => candidate.id === executionId);
    if (execution === undefined) {
      return sendError(response, 404, `Workflow execution with id '${executionId}' not found`);
    }
    if (fifth === undefined) {
      return get(() =>
        sendJsonBody(response, 200, renderExecution(execution, workflow, now(), root)),
      );
    }
    if (fifth === 'logs')
      return get(() => sendJsonBody(response, 200, renderLogs(execution, now())));
    if (fifth !== 'state') return sendError(response, 404, 'Not found');
    if (method === 'DELETE') return cancelRun(response, execution, user);
    return get(() => sendJsonBody(response, 200, { value: stateAt(execution, now()) }));
  };

  const server = await startSimServer(handle, {
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    faultBodies: {
      malformed: brokenJson,
      error: (status) => ({
        body: toJavaJson(errorBody(status, STATUS_CODES[status] ?? 'Simulated failure')),
        contentType: 'application/json',
      }),
    },
  });
  root = `${server.origin}${rootPath}`;
  return {
    url: new URL(root),
    username,
    password,
    requests: server.requests,
    faults: server.faults,
    nextRequest: (match) => server.nextRequest(match),
    switches,
    executions,
    imports,
    now,
    advance(ms) {
      if (options.manualClock !== true) throw new Error('advance() needs manualClock: true');
      manualNow += ms;
    },
    putWorkflow(workflow) {
      putWorkflow(workflow);
    },
    getWorkflow: (id) => workflows.get(id),
    deleteWorkflow(id) {
      sortedCache.clear();
      return workflows.delete(id);
    },
    cancelExecution(executionId) {
      const execution = executions.find((candidate) => candidate.id === executionId);
      if (execution === undefined) return false;
      execution.canceledAt ??= now();
      return true;
    },
    close: () => server.close(),
  };
}

/** vRO's error document. */
function errorBody(status: number, message: string): { status: string; message: string } {
  return { status: String(status), message };
}

/** The decoded segments below the root (one trailing slash allowed), or null when malformed. */
function pathSegments(rest: string): string[] | null {
  if (rest === '' || rest === '/') return [];
  const parts = rest.slice(1).split('/');
  if (parts.at(-1) === '') parts.pop();
  try {
    const decoded = parts.map((part) => decodeURIComponent(part));
    return decoded.includes('') ? null : decoded;
  } catch {
    return null;
  }
}

function nonNegative(raw: string | null): number | null | undefined {
  if (raw === null) return undefined;
  return /^\d{1,9}$/.test(raw) ? Number(raw) : null;
}

function categoryId(name: string): string {
  return seedCategories[name] ?? createHash('md5').update(name).digest('hex');
}

/** Compares `major.minor.patch` versions numerically. */
function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
