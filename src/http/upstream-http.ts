import type { IncomingHttpHeaders } from 'node:http';
import type { UpstreamCredentials } from '../credentials.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { Pool, type Dispatcher } from 'undici';
import {
  UpstreamBadResponseError,
  UpstreamBodyTooLargeError,
  UpstreamError,
  UpstreamStatusError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  withRetryAfter,
  type UpstreamService,
} from '../errors.ts';
import { CircuitBreaker, type CircuitPass, type CircuitState } from './circuit-breaker.ts';
import { CallDeadline } from './call-deadline.ts';
import { BodyTooLargeError, dispatchForText, UnreadableBodyError } from './dispatch-text.ts';
import { AdaptiveLimit } from './adaptive-limit.ts';
import { cpuShareReader } from './cpu-share.ts';
import { loopLagReader } from './loop-lag.ts';
import { ConcurrencyLimiter, QueueFullError } from './concurrency-limiter.ts';
import type { OperationCalls } from './operation-calls.ts';
import { PagedRead, type PagingLimits } from './paged-read.ts';
import { queryString } from './path.ts';
import type { HttpMethod, UpstreamRequest, UpstreamResponse } from './upstream-request.ts';
import { defaultResilience } from './resilience-defaults.ts';
import { collectAfterLargeCall } from './young-collection.ts';
import { authorizationSecrets, redact } from './redact.ts';
import {
  backoffMs,
  isIdempotent,
  isRetryableStatus,
  retryAfterMs,
  type RetryPolicy,
} from './retry-policy.ts';

/** What every upstream call carries from the GraphQL request that needs it. */
export interface CallContext {
  /** Aborted when the client goes away: the upstream request is aborted with it. */
  readonly signal: AbortSignal;
  /** Sent to the upstream as `X-Request-Id`. */
  readonly requestId: string;
  /** The user's own upstream credentials, when the client sent them (they win over the service account). */
  readonly credentials?: UpstreamCredentials;
  /** Counts the upstream call attempts made for the request (logs, metrics). */
  readonly stats?: { upstreamCalls: number };
  /** The GraphQL request (a batch: its operations together) making the call: its identical reads are made once, its share of slots is capped, its calls are counted against MAX_UPSTREAM_CALLS_PER_OPERATION. */
  readonly operation?: OperationCalls;
  /**
   * The request's one budget for upstream work (slots, locks, retries,
   * re-reads): `endsAt` in `performance.now()` time, UPSTREAM_TIMEOUT_MS after
   * the request arrived. Absent, or `Infinity` (a subscription's later
   * events): each call has its own deadline only.
   */
  readonly budget?: { endsAt: number };
  /** Told when an upstream refused the user's own credential (401): a session built on it ends. */
  readonly onCredentialRefused?: (service: UpstreamService) => void;
  /** Where the calls of the mutation field being run are written down (the audit trail). */
  readonly trail?: UpstreamTrail;
}

/** One upstream call as the audit trail records it. */
export interface TrailedCall {
  service: UpstreamService;
  method: HttpMethod;
  route: string;
  status: number | null;
  /** The `If-Match` the call sent and the `ETag` its answer carried (NSX generation numbers). */
  ifMatch?: string;
  etag?: string;
}

/** The calls of the field being run; `current` is set while a mutation field runs (they run one at a time). */
export interface UpstreamTrail {
  current: TrailedCall[] | undefined;
}

export type { HttpMethod, UpstreamRequest, UpstreamResponse } from './upstream-request.ts';

/** Takes the upstream's own error code and message out of an error body, or nulls. */
export type ErrorBodyReader = (
  body: string,
  contentType: string | undefined,
) => { code: string | null; message: string | null };

export interface UpstreamHttpOptions {
  service: UpstreamService;
  /** API root, e.g. `https://vro.example:8281/vco/api`. */
  baseUrl: URL;
  timeoutMs: number;
  readErrorBody: ErrorBodyReader;
  /** Keep-alive connections per upstream. */
  connections?: number;
  /** Largest response body accepted. */
  maxResponseBytes?: number;
  /** Pages and bytes one paged read of a list may take. */
  paging?: PagingLimits;
  tls?: { ca?: string | Buffer; rejectUnauthorized: boolean };
  retry?: RetryPolicy;
  circuit?: { failureThreshold: number; resetMs: number };
  concurrency?: UpstreamConcurrency;
  /** Told of every finished attempt (logs, metrics). */
  observer?: (event: UpstreamCallEvent) => void;
  /** Told of every attempt as it starts (traces): headers to add to it, and a callback for its end. */
  tracer?: UpstreamTracer;
}

/**
 * Calls in flight and waiting. Adaptive (`minConcurrent` set): the limit of
 * calls in flight follows the appliance's latency between `minConcurrent` and
 * `maxConcurrent` (see AdaptiveLimit); otherwise it is `maxConcurrent`.
 */
export interface UpstreamConcurrency {
  maxConcurrent: number;
  maxQueue: number;
  minConcurrent?: number;
}

/** One attempt about to start, for tracing. */
export interface UpstreamAttempt {
  service: UpstreamService;
  method: HttpMethod;
  route: string;
  attempt: number;
  requestId: string;
}

export type UpstreamTracer = (attempt: UpstreamAttempt) => {
  /** Sent with the attempt (e.g. `traceparent`). */
  headers: Readonly<Record<string, string>>;
  end(event: UpstreamCallEvent): void;
};

/** The request was abandoned because the GraphQL client went away; nobody sees this error. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client went away; the upstream request was aborted.');
    this.name = 'ClientGoneError';
  }
}

/**
 * Refused at once because the calls waiting for a slot fill the queue: the
 * gateway's own load shedding, so it is neither retried nor counted against
 * the upstream's circuit.
 */
class QueueFullUnavailableError extends UpstreamUnavailableError {}

function trailed(
  service: UpstreamService,
  request: UpstreamRequest,
  status: number | null,
  etag: string | undefined,
): TrailedCall {
  const ifMatch = request.headers?.['if-match'];
  return {
    service,
    method: request.method,
    route: request.route,
    status,
    ...(ifMatch === undefined ? {} : { ifMatch }),
    ...(etag === undefined ? {} : { etag }),
  };
}

/** What is left of the request's budget for upstream work, in ms (Infinity without one). */
export function remainingBudgetMs(call: CallContext): number {
  return call.budget === undefined ? Infinity : call.budget.endsAt - performance.now();
}

/** One finished upstream call, for logs and metrics. */
export interface UpstreamCallEvent {
  service: UpstreamService;
  method: HttpMethod;
  route: string;
  /** HTTP status, or null when none came back. */
  status: number | null;
  durationMs: number;
  outcome: 'ok' | 'error' | 'timeout' | 'unavailable' | 'bad-response' | 'shed' | 'client-gone';
  attempt: number;
  requestId: string;
}

export interface UpstreamHealth {
  circuit: CircuitState;
  running: number;
  queued: number;
  /** Calls that may be in flight now (adaptive: the current limit). */
  limit: number;
}

/**
 * The one road to an upstream: a keep-alive pool, one deadline per call that
 * covers connect, headers, body and retries, abort on client disconnect,
 * reads retried on connection errors, 429 and 502-504 with jittered backoff,
 * a circuit breaker and a cap on concurrent calls, and every failure mapped
 * to an UpstreamError with a contract code. Nothing it throws names the
 * upstream's address or carries a credential.
 */
export class UpstreamHttp {
  readonly service: UpstreamService;
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #options: UpstreamHttpOptions;
  readonly #breaker: CircuitBreaker;
  #reached: boolean | undefined;
  readonly #limiter: ConcurrencyLimiter;
  readonly #adaptive: AdaptiveLimit | undefined;
  readonly #retry: RetryPolicy;

  constructor(options: UpstreamHttpOptions) {
    this.service = options.service;
    this.#options = options;
    this.#basePath = options.baseUrl.pathname.replace(/\/+$/, '');
    this.#retry = options.retry ?? defaultResilience.retry;
    this.#breaker = new CircuitBreaker(options.circuit ?? defaultResilience.circuit);
    const concurrency = options.concurrency ?? defaultResilience.concurrency;
    const { maxConcurrent, minConcurrent } = concurrency;
    this.#adaptive =
      minConcurrent === undefined
        ? undefined
        : new AdaptiveLimit({
            initial: Math.min(
              maxConcurrent,
              Math.max(minConcurrent, defaultResilience.concurrency.initial),
            ),
            min: minConcurrent,
            max: maxConcurrent,
            ownDelayMs: loopLagReader(),
            ownCpu: cpuShareReader(),
          });
    this.#limiter = new ConcurrencyLimiter(this.#adaptive ?? maxConcurrent, concurrency.maxQueue);
    this.#pool = new Pool(options.baseUrl.origin, {
      connections: concurrency.maxConcurrent,
      keepAliveTimeout: 30_000,
      headersTimeout: 0,
      bodyTimeout: 0,
      ...(options.tls === undefined ? {} : { connect: options.tls }),
    });
  }

  get timeoutMs(): number {
    return this.#options.timeoutMs;
  }

  get paging(): PagingLimits {
    return this.#options.paging ?? defaultResilience.paging;
  }

  /** A new read of a whole list for the request `call`, within the seam's paging limits. */
  pagedRead(call: CallContext): PagedRead {
    return new PagedRead(this, () => remainingBudgetMs(call));
  }

  /**
   * Whether the last call that ended reached the appliance (it answered, 5xx
   * aside); undefined before any call ended. Reading it sends nothing.
   */
  get lastReached(): boolean | undefined {
    return this.#reached;
  }

  get health(): UpstreamHealth {
    return {
      circuit: this.#breaker.state,
      running: this.#limiter.running,
      queued: this.#limiter.queued,
      limit: this.#limiter.limit,
    };
  }

  /** Sends one request; resolves for 2xx, throws an UpstreamError otherwise. */
  async request(call: CallContext, request: UpstreamRequest): Promise<UpstreamResponse> {
    // A query that cannot be encoded fails here, as bad input: never as the upstream's failure.
    const search = queryString(request.query);
    const target = this.#basePath + request.path + search;
    const { operation } = call;
    if (operation === undefined) return this.#call(call, request, target);
    if (request.exclusive === true) {
      operation.claim();
      return this.#call(call, request, target);
    }
    return operation.send(this.service, request, () => this.#call(call, request, target), search);
  }

  /** `target`: the request's path and query string below the upstream's origin. */
  async #call(
    call: CallContext,
    request: UpstreamRequest,
    target: string,
  ): Promise<UpstreamResponse> {
    const { timeoutMs } = this.#options;
    // What is left of the request's budget, but a quarter second for a call begun late (a loaded
    // event loop); no call runs past the budget's end plus that quarter second: a call begun after
    // it is not made, whatever loop (an appliance's endless pages) asks for it.
    const floorMs = Math.min(timeoutMs, 250);
    const left = remainingBudgetMs(call);
    const allowedMs = Math.min(timeoutMs, Math.max(left, Math.min(floorMs, left + floorMs)));
    if (allowedMs <= 0) throw new UpstreamTimeoutError(this.service, timeoutMs);
    const deadline = new CallDeadline(call.signal, allowedMs);
    try {
      return await this.#attempts(call, request, target, deadline);
    } finally {
      deadline.dispose();
    }
  }

  async #attempts(
    call: CallContext,
    request: UpstreamRequest,
    target: string,
    deadline: CallDeadline,
  ): Promise<UpstreamResponse> {
    const { signal } = deadline;
    const retryable = isIdempotent(request.method);
    for (let attempt = 1; ; attempt += 1) {
      const started = performance.now();
      const traced = this.#options.tracer?.({
        service: this.service,
        method: request.method,
        route: request.route,
        attempt,
        requestId: call.requestId,
      });
      const observe = (
        outcome: UpstreamCallEvent['outcome'],
        status: number | null,
        etag?: string,
      ): void => {
        const event: UpstreamCallEvent = {
          service: this.service,
          method: request.method,
          route: request.route,
          status,
          durationMs: performance.now() - started,
          outcome,
          attempt,
          requestId: call.requestId,
        };
        traced?.end(event);
        this.#options.observer?.(event);
        call.trail?.current?.push(trailed(this.service, request, status, etag));
      };
      const pass = this.#breaker.tryAcquire();
      if (pass === undefined) {
        observe('shed', null);
        throw withRetryAfter(
          new UpstreamUnavailableError(this.service, 'calls are shed after repeated failures'),
          this.#breaker.retryInMs,
        );
      }
      let result: UpstreamResponse | Error;
      if (call.stats !== undefined) call.stats.upstreamCalls += 1;
      try {
        const sent =
          traced === undefined
            ? request
            : { ...request, headers: { ...request.headers, ...traced.headers } };
        result = await this.#sendWithSlot(call, sent, target, deadline);
      } catch (error) {
        result = this.#mapFailure(error, call.signal, deadline);
      }
      const retryAfter = this.#retryDelay(result, retryable, attempt, deadline.at);
      if (!(result instanceof Error) && result.status >= 200 && result.status < 300) {
        pass.succeeded();
        this.#reached = true;
        observe('ok', result.status, result.headers['etag']);
        return result;
      }
      const failure = result instanceof Error ? result : this.#statusError(result, request, call);
      if (
        !(result instanceof Error) &&
        result.status === 401 &&
        request.authorization !== undefined &&
        request.authorization === call.credentials?.[this.service]
      ) {
        call.onCredentialRefused?.(this.service);
      }
      this.#recordFailure(pass, failure, result);
      observe(outcomeOf(failure), result instanceof Error ? statusOf(failure) : result.status);
      if (retryAfter === undefined) throw failure;
      try {
        await delay(retryAfter, undefined, { signal });
      } catch (error) {
        throw this.#mapFailure(error, call.signal, deadline);
      }
    }
  }

  /** True when the upstream answers at all (any status below 500) to a GET of its API root. */
  async probe(signal: AbortSignal): Promise<boolean> {
    try {
      const answer = await this.#pool.request({
        method: 'GET',
        path: `${this.#basePath}/`,
        signal: AbortSignal.any([
          signal,
          AbortSignal.timeout(Math.min(this.#options.timeoutMs, 5000)),
        ]),
      });
      await answer.body.dump();
      return answer.statusCode < 500;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  async #sendWithSlot(
    call: CallContext,
    request: UpstreamRequest,
    target: string,
    deadline: CallDeadline,
  ): Promise<UpstreamResponse> {
    const { signal } = deadline;
    let release: () => void;
    try {
      // Awaited even when a slot is free: the calls started in the same turn
      // count in each other's calls in flight, as the appliance sees them.
      release = await this.#limiter.acquire(signal, call.operation);
    } catch (error) {
      if (error instanceof QueueFullError) {
        throw new QueueFullUnavailableError(this.service, 'too many calls are waiting for it');
      }
      throw error;
    }
    const inFlight = this.#limiter.running;
    const started = performance.now();
    try {
      const response = await this.#send(call, request, target, signal);
      this.#learn(request, started, inFlight, response.status === 429 || response.status === 503);
      return response;
    } catch (error) {
      // An answer that could not be used still took the appliance its time; a timeout is overload.
      if (error instanceof UpstreamBadResponseError || deadline.timedOut) {
        this.#learn(request, started, inFlight, deadline.timedOut);
      }
      throw error;
    } finally {
      release();
    }
  }

  /** Tells the adaptive limit how long a call took. */
  #learn(request: UpstreamRequest, started: number, inFlight: number, overloaded: boolean): void {
    this.#adaptive?.record({
      key: limitKey(request),
      rttMs: performance.now() - started,
      inFlight,
      inFlightAtEnd: this.#limiter.running,
      overloaded,
    });
  }

  #mapFailure(error: unknown, clientSignal: AbortSignal, deadline: CallDeadline): Error {
    if (deadline.timedOut) return new UpstreamTimeoutError(this.service, this.#options.timeoutMs);
    // Any other abort can only be the client's.
    if (clientSignal.aborted || deadline.signal.aborted) return new ClientGoneError();
    if (error instanceof UpstreamError) return error;
    return new UpstreamUnavailableError(this.service, describeNetworkError(error));
  }

  /** The upstream's own code and message, with anything it repeats of the request redacted. */
  #statusError(
    response: UpstreamResponse,
    request: UpstreamRequest,
    call: CallContext,
  ): UpstreamStatusError {
    const said = this.#options.readErrorBody(response.body, response.headers['content-type']);
    const sensitive = {
      authorization: request.authorization,
      // the user's credentials for the other upstreams too: an error never repeats any of them
      secrets: [
        ...(request.secrets ?? []),
        ...Object.values(call.credentials ?? {}).flatMap(authorizationSecrets),
      ],
      baseUrl: this.#options.baseUrl,
    };
    const clean = (text: string | null) => (text === null ? null : redact(text, sensitive));
    return withRetryAfter(
      new UpstreamStatusError(
        this.service,
        response.status,
        clean(said.code),
        clean(said.message),
        undefined,
        response.headers['content-type'],
      ),
      retryAfterMs(response.headers['retry-after']),
    );
  }

  /** Network failures, timeouts and 5xx count against the circuit; a 4xx is a sane answer. */
  #recordFailure(pass: CircuitPass, failure: Error, result: UpstreamResponse | Error): void {
    if (failure instanceof ClientGoneError || failure instanceof QueueFullUnavailableError) {
      pass.abandoned();
    } else if (
      failure instanceof UpstreamTimeoutError ||
      failure instanceof UpstreamUnavailableError ||
      (!(result instanceof Error) && result.status >= 500)
    ) {
      pass.failed();
      this.#reached = false;
    } else {
      pass.succeeded();
      this.#reached = true;
    }
  }

  /** The pause before another attempt, or undefined when this failure is final. */
  #retryDelay(
    result: UpstreamResponse | Error,
    retryable: boolean,
    attempt: number,
    deadlineAt: number,
  ): number | undefined {
    if (!retryable || attempt > this.#retry.retries) return undefined;
    let delay: number;
    if (result instanceof Error) {
      if (
        !(result instanceof UpstreamUnavailableError) ||
        result instanceof QueueFullUnavailableError
      ) {
        return undefined;
      }
      delay = backoffMs(this.#retry, attempt);
    } else {
      if (!isRetryableStatus(result.status)) return undefined;
      delay = retryAfterMs(result.headers['retry-after']) ?? backoffMs(this.#retry, attempt);
    }
    // A retry that cannot finish within the call's deadline is not worth starting.
    return Date.now() + delay < deadlineAt - 50 ? delay : undefined;
  }

  async #send(
    call: CallContext,
    request: UpstreamRequest,
    target: string,
    signal: AbortSignal,
  ): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { 'x-request-id': call.requestId, ...request.headers };
    if (request.authorization !== undefined) headers['authorization'] = request.authorization;
    const options: Dispatcher.DispatchOptions = { method: request.method, path: target, headers };
    if (request.body !== undefined) options.body = request.body;
    const limit = Math.min(
      this.#options.maxResponseBytes ?? 32 * 1024 * 1024,
      request.maxBytes ?? Infinity,
    );
    const sentBytes =
      typeof request.body === 'string' || request.body instanceof Uint8Array
        ? request.body.length
        : Number(headers['content-length'] ?? 0);
    try {
      const asBytes = request.answerAs === 'bytes';
      const answer = await dispatchForText(this.#pool, options, signal, limit, asBytes);
      collectAfterLargeCall((answer.bytes?.length ?? answer.body.length) + sentBytes);
      const headers = flattenHeaders(answer.headers);
      return answer.bytes === undefined
        ? { status: answer.status, headers, body: answer.body }
        : { status: answer.status, headers, body: answer.body, bytes: answer.bytes };
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        throw new UpstreamBodyTooLargeError(this.service, error.limit, error.status);
      }
      if (!(error instanceof UnreadableBodyError)) throw error;
      throw new UpstreamBadResponseError(this.service, error.message, error.status);
    }
  }
}

/** The adaptive limit's key of a request (`GET /workflows`), made once per method and route. */
const limitKeys = new Map<string, Map<HttpMethod, string>>();

function limitKey({ method, route }: UpstreamRequest): string {
  let byMethod = limitKeys.get(route);
  if (byMethod === undefined) {
    byMethod = new Map();
    limitKeys.set(route, byMethod);
  }
  let key = byMethod.get(method);
  if (key === undefined) {
    key = `${method} ${route}`;
    byMethod.set(method, key);
  }
  return key;
}

function outcomeOf(failure: Error): UpstreamCallEvent['outcome'] {
  if (failure instanceof ClientGoneError) return 'client-gone';
  if (failure instanceof UpstreamTimeoutError) return 'timeout';
  if (failure instanceof QueueFullUnavailableError) return 'shed';
  if (failure instanceof UpstreamUnavailableError) return 'unavailable';
  if (failure instanceof UpstreamBadResponseError) return 'bad-response';
  return 'error';
}

function statusOf(failure: Error): number | null {
  return failure instanceof UpstreamError ? failure.upstream.status : null;
}

function flattenHeaders(raw: IncomingHttpHeaders): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const name in raw) {
    const value = raw[name];
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Node's codes for a certificate that does not verify (unknown CA, self-signed, expired, wrong name). */
const certificateProblem = /CERT|SELF_SIGNED|ISSUER|UNABLE_TO_VERIFY/;

/** A short reason from a network error's code; never its message, which names the address. */
function describeNetworkError(error: unknown): string {
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unknown';
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    UND_ERR_SOCKET: 'connection closed mid-answer',
    UND_ERR_CLOSED: 'connection closed',
    ENOTFOUND: 'host not found',
    EHOSTUNREACH: 'host unreachable',
    UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
    HPE_INVALID_CONSTANT: 'malformed HTTP answer',
    EPROTO: 'TLS handshake failed',
  };
  const reason = certificateProblem.test(code)
    ? 'its TLS certificate is not trusted'
    : reasons[code];
  return `${reason ?? 'request failed'} (${code})`;
}
