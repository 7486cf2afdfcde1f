import { scopedStore, upstreamScope, type RemoteStore } from '../../cache/remote-store.ts';
import { SharedCache } from '../../cache/shared-cache.ts';
import { detached, untilGone } from '../../cache/shared-read.ts';
import { credentialKey } from '../../credentials.ts';
import type { GatewayConfig } from '../../gateway-config.ts';
import { basicAuthorization, bearerAuthorization } from '../../http/auth.ts';
import { multipartBody, type StreamableFile } from '../../http/multipart.ts';
import { path } from '../../http/path.ts';
import { upstreamHttpOptions, type UpstreamHooks } from '../../http/upstream-options.ts';
import {
  UpstreamHttp,
  type CallContext,
  type UpstreamRequest,
  type UpstreamResponse,
} from '../../http/upstream-http.ts';
import { idCondition } from './conditions.ts';
import {
  decodeExecution,
  decodeExecutionHistory,
  decodeLogs,
  decodeWorkflowDetail,
  decodeWorkflowPage,
  executionIdFromLocation,
  parseJsonBody,
} from './decode.ts';
import { readVroErrorBody } from './error-body.ts';
import type { ServiceBearer } from './service-bearer.ts';
import { newestFirst } from './execution-history.ts';
import {
  ExecutionWatcher,
  executionWatchGroup,
  executionWatchKey,
  type ExecutionEvent,
  type WatcherOptions,
} from './execution-watcher.ts';
import { decodePresentation } from './presentation.ts';
import { UpstreamError, UpstreamStatusError } from '../../errors.ts';
import {
  terminalStates,
  type ExecutionHistoryPage,
  type ExecutionRecord,
  type FormRecord,
  type LogEntryRecord,
  type WireParameterValue,
  type WireRunRequest,
  type WireTagImportMode,
  type WorkflowPage,
  type WorkflowRecord,
} from './wire.ts';

export interface WorkflowQuery {
  conditions?: string | undefined;
  maxResult: number;
  startIndex: number;
}

export interface PackageUpload extends StreamableFile {
  readonly name: string;
  readonly type: string;
}

export interface PackageImportOptions {
  overwrite: boolean;
  importConfigurationAttributeValues: boolean;
  tagImportMode: WireTagImportMode;
}

export interface VroCredentials {
  username: string | undefined;
  password: string | undefined;
}

export interface VroClientOptions {
  /** Polling of followed runs. */
  watcher?: WatcherOptions;
  /** How long a workflow's detail and form are kept per credential; 0 keeps none. */
  detailCacheTtlMs?: number;
  detailCacheMaxEntries?: number;
  /** The store shared with the other replicas: the kept details and forms are theirs too. */
  remote?: RemoteStore;
  /** Epoch ms; a fake clock in tests. */
  now?: () => number;
  /** The service account's bearer where vRO authenticates through vRA 8 (VRO_AUTH_MODE=vra-token). */
  serviceBearer?: ServiceBearer;
}

/** A workflow's form, with the version of the workflow it was read for. */
interface VersionedForm {
  version: string;
  form: FormRecord;
}

/** Frozen: the seam knows it unchanged between calls (operation-calls.ts). */
const json = Object.freeze({ accept: 'application/json' } as const);

/** Typed calls to the orchestration server (vRO); paths are below its API root (`.../vco/api`). */
export class VroClient {
  readonly #http: UpstreamHttp;
  readonly #credentials: VroCredentials;
  readonly #watcher: ExecutionWatcher;
  readonly #detailCache: SharedCache<WorkflowRecord> | undefined;
  readonly #formCache: SharedCache<VersionedForm> | undefined;
  readonly #serviceBearer: ServiceBearer | undefined;
  /** The service account's `Authorization`, made once for the credentials it was made of. */
  #serviceAuthorization:
    { username: string | undefined; password: string | undefined; value: string } | undefined;

  constructor(http: UpstreamHttp, credentials: VroCredentials, options: VroClientOptions = {}) {
    this.#http = http;
    this.#credentials = credentials;
    this.#watcher = new ExecutionWatcher(options.watcher ?? {});
    this.#serviceBearer = options.serviceBearer;
    const ttlMs = options.detailCacheTtlMs ?? 0;
    const cache = <V>(name: string): SharedCache<V> | undefined =>
      ttlMs > 0
        ? new SharedCache<V>({
            name,
            ttlMs,
            maxEntries: options.detailCacheMaxEntries ?? 10_000,
            ...(options.now === undefined ? {} : { now: options.now }),
            ...(options.remote === undefined ? {} : { remote: options.remote }),
            // keys are `<credential>\n<workflow id>`: a credential's entries are one group
            groupOf: (key) => key.slice(0, key.indexOf('\n')),
          })
        : undefined;
    this.#detailCache = cache('vro_workflow_details');
    this.#formCache = cache('vro_workflow_forms');
  }

  /** `GET /workflows?conditions=&maxResult=&startIndex=` */
  async queryWorkflows(call: CallContext, query: WorkflowQuery): Promise<WorkflowPage> {
    const response = await this.#request(call, {
      method: 'GET',
      path: '/workflows',
      route: '/workflows',
      query: {
        conditions: query.conditions,
        maxResult: query.maxResult,
        startIndex: query.startIndex,
      },
      headers: json,
    });
    return decodeWorkflowPage(parseJsonBody(response.body, response.status), response.status);
  }

  /** The query-result item of one workflow (`conditions=id=<id>`), or null when none matches. */
  async findWorkflow(call: CallContext, id: string): Promise<WorkflowRecord | null> {
    const page = await this.queryWorkflows(call, {
      conditions: idCondition(id),
      maxResult: 2,
      startIndex: 0,
    });
    // condition values match case-insensitively; ids do not
    return page.workflows.find((workflow) => workflow.id === id) ?? null;
  }

  /**
   * `GET /workflows/{id}/`: the detail, with input and output parameters.
   * Without `version`, always read (the detail is what tells the version),
   * and kept. With the version a workflow list has just shown, the detail
   * kept for that version serves, per credential, until the cache's time is
   * up: vRO gives a changed workflow a new version. A list showing another
   * version, or a 404, replaces or drops what is kept.
   */
  getWorkflow(call: CallContext, id: string, version?: string): Promise<WorkflowRecord> {
    return this.#cached(
      this.#detailCache,
      call,
      id,
      (kept) => version !== undefined && kept.version === version,
      (shared) => this.#readWorkflow(shared, id),
    );
  }

  /**
   * The detail kept for the workflow whatever its version (`cached`), else a
   * read: for checks that are repeated against a fresh read when they fail.
   */
  async getWorkflowKept(
    call: CallContext,
    id: string,
  ): Promise<{ workflow: WorkflowRecord; cached: boolean }> {
    let cached = true;
    const workflow = await this.#cached(
      this.#detailCache,
      call,
      id,
      () => true,
      (shared) => {
        cached = false;
        return this.#readWorkflow(shared, id);
      },
    );
    return { workflow, cached };
  }

  async #readWorkflow(call: CallContext, id: string): Promise<WorkflowRecord> {
    const response = await this.#request(call, {
      method: 'GET',
      path: path`/workflows/${id}/`,
      route: '/workflows/{id}/',
      headers: json,
    });
    return decodeWorkflowDetail(parseJsonBody(response.body, response.status), response.status);
  }

  /** `POST /workflows/{id}/executions/`: answers the new execution's id, from `Location`. */
  async startExecution(
    call: CallContext,
    workflowId: string,
    parameters: WireParameterValue[],
  ): Promise<string> {
    const body: WireRunRequest = { parameters };
    const response = await this.#request(call, {
      method: 'POST',
      path: path`/workflows/${workflowId}/executions/`,
      route: '/workflows/{id}/executions/',
      headers: { ...json, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return executionIdFromLocation(response.headers['location'], response.status);
  }

  /** `GET /workflows/{id}/executions/{executionId}/` */
  async getExecution(
    call: CallContext,
    workflowId: string,
    executionId: string,
  ): Promise<ExecutionRecord> {
    const response = await this.#request(call, {
      method: 'GET',
      path: path`/workflows/${workflowId}/executions/${executionId}/`,
      route: '/workflows/{id}/executions/{executionId}/',
      headers: json,
    });
    return decodeExecution(
      parseJsonBody(response.body, response.status),
      workflowId,
      response.status,
    );
  }

  /**
   * `GET /workflows/{id}/presentation/`: the workflow's input form, kept per
   * credential for the workflow's `version` (from a list or a detail just
   * read) like the detail.
   */
  async getPresentation(
    call: CallContext,
    workflowId: string,
    version: string,
  ): Promise<FormRecord> {
    const kept = await this.#cached(
      this.#formCache,
      call,
      workflowId,
      (form) => form.version === version,
      async (shared) => ({ version, form: await this.#readPresentation(shared, workflowId) }),
    );
    return kept.form;
  }

  async #readPresentation(call: CallContext, workflowId: string): Promise<FormRecord> {
    const response = await this.#request(call, {
      method: 'GET',
      path: path`/workflows/${workflowId}/presentation/`,
      route: '/workflows/{id}/presentation/',
      headers: json,
    });
    return decodePresentation(parseJsonBody(response.body, response.status), response.status);
  }

  /** The detail and form caches (undefined when WORKFLOW_DETAIL_CACHE_TTL_MS is 0), for metrics. */
  get caches(): Array<SharedCache<WorkflowRecord> | SharedCache<VersionedForm>> {
    return [this.#detailCache, this.#formCache].filter((cache) => cache !== undefined);
  }

  /** Forgets every kept detail and form, on every replica (a package import may change workflows in place). */
  async forgetWorkflows(): Promise<void> {
    await Promise.all([this.#detailCache?.clear(), this.#formCache?.clear()]);
  }

  /**
   * Forgets the details and forms kept for one credential (the `Authorization`
   * sent to vRO; undefined: the service account), on every replica: vRO (or
   * vRA, whose bearer it is) has refused it.
   */
  async forgetCredential(authorization: string | undefined): Promise<void> {
    const group = credentialKey(authorization);
    await Promise.all([this.#detailCache?.forget(group), this.#formCache?.forget(group)]);
  }

  /**
   * What `cache` keeps for the workflow under the caller's credential while
   * `isCurrent` accepts it, else `read` (shared by every request waiting for
   * it, so that no single client's disconnect aborts it). A read replaces
   * what was kept, and a failed one (a 404: the workflow is gone) leaves nothing.
   */
  #cached<V>(
    cache: SharedCache<V> | undefined,
    call: CallContext,
    id: string,
    isCurrent: (kept: V) => boolean,
    read: (call: CallContext) => Promise<V>,
  ): Promise<V> {
    if (cache === undefined) return read(call);
    const key = `${credentialKey(call.credentials?.vro)}\n${id}`;
    const shared = cache.getCurrent(key, isCurrent, () => read({ ...call, signal: detached }));
    return untilGone(shared, call.signal);
  }

  /** `GET /workflows/{id}/executions/?maxResult=&startIndex=`: runs in the server's order. */
  async listExecutions(
    call: CallContext,
    workflowId: string,
    query: { maxResult: number; startIndex: number },
  ): Promise<ExecutionHistoryPage> {
    const response = await this.#request(call, {
      method: 'GET',
      path: path`/workflows/${workflowId}/executions/`,
      route: '/workflows/{id}/executions/',
      query: { maxResult: query.maxResult, startIndex: query.startIndex },
      headers: json,
    });
    return decodeExecutionHistory(
      parseJsonBody(response.body, response.status),
      workflowId,
      response.status,
    );
  }

  /** `limit` runs of the workflow after its `offset` newest, newest first, with the total. */
  recentExecutions(
    call: CallContext,
    workflowId: string,
    offset: number,
    limit: number,
  ): Promise<ExecutionHistoryPage> {
    return newestFirst((query) => this.listExecutions(call, workflowId, query), offset, limit);
  }

  /** `GET /workflows/{id}/executions/{executionId}/logs/`, in vRO's order (newest first). */
  async getExecutionLogs(
    call: CallContext,
    workflowId: string,
    executionId: string,
  ): Promise<LogEntryRecord[]> {
    const response = await this.#request(call, {
      method: 'GET',
      path: path`/workflows/${workflowId}/executions/${executionId}/logs/`,
      route: '/workflows/{id}/executions/{executionId}/logs/',
      headers: json,
    });
    return decodeLogs(parseJsonBody(response.body, response.status), response.status);
  }

  /**
   * `DELETE /workflows/{id}/executions/{executionId}/state` (204), then the
   * execution as vRO reports it. Once vRO has accepted the cancel, the run's
   * pollers (on every replica, under every credential) poll at once and
   * again shortly, so that its subscribers see it end within a second
   * rather than at their next backed-off poll. vRO refuses to cancel a run that has ended
   * with a 4xx whose status is unconfirmed (400 or 409): the run is read, and
   * an ended one answers CONFLICT whatever the status was.
   */
  async cancelExecution(
    call: CallContext,
    workflowId: string,
    executionId: string,
  ): Promise<ExecutionRecord> {
    try {
      await this.#request(call, {
        method: 'DELETE',
        path: path`/workflows/${workflowId}/executions/${executionId}/state`,
        route: '/workflows/{id}/executions/{executionId}/state',
        headers: json,
      });
    } catch (error) {
      if (!(error instanceof UpstreamStatusError) || ![400, 409].includes(error.status))
        throw error;
      const execution = await this.getExecution(call, workflowId, executionId);
      if (terminalStates.has(execution.state)) throw new RunEndedError(execution, error);
      throw error;
    }
    this.#watcher.nudge(executionWatchGroup(workflowId, executionId));
    return this.getExecution(call, workflowId, executionId);
  }

  /** `POST /packages`: the package streamed as the multipart part named `file`. */
  async importPackage(
    call: CallContext,
    file: PackageUpload,
    options: PackageImportOptions,
  ): Promise<void> {
    const multipart = multipartBody([
      {
        name: 'file',
        filename: file.name === '' ? 'upload.package' : file.name,
        contentType: file.type === '' ? 'application/octet-stream' : file.type,
        file,
      },
    ]);
    await this.#request(call, {
      method: 'POST',
      path: '/packages',
      route: '/packages',
      query: {
        overwrite: options.overwrite,
        importConfigurationAttributeValues: options.importConfigurationAttributeValues,
        tagImportMode: options.tagImportMode,
      },
      headers: {
        ...json,
        'content-type': multipart.contentType,
        'content-length': String(multipart.contentLength),
      },
      body: multipart.body,
    });
  }

  /**
   * The execution now and on every change of state, from one poller shared
   * by every subscriber with the same credentials.
   */
  watchExecution(
    call: CallContext,
    workflowId: string,
    executionId: string,
  ): AsyncIterableIterator<ExecutionEvent> {
    const key = executionWatchKey(
      workflowId,
      executionId,
      credentialKey(this.#authorization(call)),
    );
    const credentials = call.credentials;
    return this.#watcher.watch(
      key,
      (signal, requestId, stats) =>
        this.getExecution(
          credentials === undefined
            ? { signal, requestId, stats }
            : { signal, requestId, stats, credentials },
          workflowId,
          executionId,
        ),
      call.stats,
      executionWatchGroup(workflowId, executionId),
    );
  }

  /** The seam, for readiness and metrics. */
  get seam(): UpstreamHttp {
    return this.#http;
  }

  /** Number of executions being polled for subscriptions. */
  get activeWatches(): number {
    return this.#watcher.activePollers;
  }

  async close(): Promise<void> {
    this.#watcher.close();
    await this.#http.close();
  }

  /** A call with the caller's credential; one vRO refuses (401) loses what is kept for it. */
  async #request(call: CallContext, request: UpstreamRequest): Promise<UpstreamResponse> {
    if (call.credentials?.vro === undefined && this.#serviceBearer !== undefined) {
      const token = await this.#serviceBearer.token(call);
      if (token !== undefined) {
        return this.#withServiceBearer(call, request, this.#serviceBearer, token);
      }
    }
    const authorization = this.#authorization(call);
    return this.#http
      .request(call, authorization === undefined ? request : { ...request, authorization })
      .catch(async (error: unknown) => {
        if (error instanceof UpstreamStatusError && error.status === 401) {
          await this.forgetCredential(call.credentials?.vro);
        }
        throw error;
      });
  }

  /**
   * The service account's call with its vRA 8 bearer. vRO's 401 means it did
   * not act: the bearer is renewed (once, shared by every call refused with
   * it) and the call sent once more; a streamed body cannot be sent again,
   * so that call fails and the next one logs in afresh.
   */
  async #withServiceBearer(
    call: CallContext,
    request: UpstreamRequest,
    bearer: ServiceBearer,
    token: string,
  ): Promise<UpstreamResponse> {
    const send = (sent: string) =>
      this.#http.request(call, { ...request, authorization: bearerAuthorization(sent) });
    try {
      return await send(token);
    } catch (error) {
      if (!isUnauthorized(error)) throw error;
      if (request.body !== undefined && !isReplayable(request.body)) {
        bearer.reject(token);
        throw error;
      }
    }
    const renewed = await bearer.renew(call, token);
    try {
      return await send(renewed);
    } catch (error) {
      if (isUnauthorized(error)) bearer.reject(renewed);
      throw error;
    }
  }

  /**
   * The one place the upstream `Authorization` is computed: the user's own
   * credentials when the request carries them, else the service account.
   */
  #authorization(call: CallContext): string | undefined {
    const user = call.credentials?.vro;
    if (user !== undefined) return user;
    const { username, password } = this.#credentials;
    if (username === undefined && password === undefined) return undefined;
    const kept = this.#serviceAuthorization;
    if (kept !== undefined && kept.username === username && kept.password === password) {
      return kept.value;
    }
    const value = basicAuthorization(username ?? '', password ?? '');
    this.#serviceAuthorization = { username, password, value };
    return value;
  }
}

function isUnauthorized(error: unknown): boolean {
  return error instanceof UpstreamStatusError && error.status === 401;
}

function isReplayable(body: NonNullable<UpstreamRequest['body']>): boolean {
  return typeof body === 'string' || body instanceof Uint8Array;
}

/**
 * `remote`: the store shared with the other replicas, if any (their pollers
 * of a run are shared); `serviceBearer`: the service account's vRA 8 bearer
 * under VRO_AUTH_MODE=vra-token.
 */
export function createVroClient(
  config: GatewayConfig,
  hooks: UpstreamHooks = {},
  remote?: RemoteStore,
  serviceBearer?: ServiceBearer,
): VroClient {
  const scoped =
    remote === undefined ? undefined : scopedStore(remote, upstreamScope('vro', config.vro));
  return new VroClient(
    new UpstreamHttp({
      ...upstreamHttpOptions(config, 'vro', hooks),
      readErrorBody: readVroErrorBody,
    }),
    { username: config.vro.username, password: config.vro.password },
    {
      detailCacheTtlMs: config.workflowDetailCacheTtlMs,
      ...(scoped === undefined ? {} : { watcher: { remote: scoped }, remote: scoped }),
      ...(serviceBearer === undefined ? {} : { serviceBearer }),
    },
  );
}

/** A cancel of a run that has already ended: CONFLICT, with what vRO said. */
export class RunEndedError extends UpstreamError {
  readonly code = 'CONFLICT';
  constructor(execution: ExecutionRecord, refusal: UpstreamStatusError) {
    super(
      'CONFLICT',
      `The run has already ended (${execution.state}): there is nothing to cancel.`,
      refusal.upstream,
    );
  }
}
