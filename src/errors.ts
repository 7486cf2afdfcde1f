import { GraphQLError } from 'graphql';
import { redactSecrets } from './http/redact.ts';

/** The codes of the runtime contract; every error the gateway returns carries one. */
export type ErrorCode =
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_BAD_RESPONSE'
  | 'UPSTREAM_ERROR'
  | 'RATE_LIMITED'
  | 'AUDIT_UNAVAILABLE'
  | 'NOT_SUPPORTED';

export type UpstreamService = 'vro' | 'vra' | 'nsx';

/** `extensions.upstream` of the runtime contract. */
export interface UpstreamDetail {
  service: UpstreamService;
  status: number | null;
  code: string | null;
  message: string | null;
}

const serviceLabel: Record<UpstreamService, string> = {
  vro: 'The orchestration server (vRO)',
  vra: 'The catalog service (vRA)',
  nsx: 'The network manager (NSX)',
};

/** Base of every error the gateway raises on purpose: a GraphQLError with a contract code. */
export abstract class GatewayError extends GraphQLError {
  abstract readonly code: ErrorCode;
}

/** One wrong field of a form, as `extensions.fields` lists it (the `RequestFormField.name`). */
export interface FieldProblem {
  name: string;
  message: string;
}

/**
 * Arguments the gateway rejects itself; no upstream call is made. `fields`
 * names each wrong field of a form, so that a front-end can place each message.
 */
export class BadUserInputError extends GatewayError {
  readonly code = 'BAD_USER_INPUT';
  constructor(message: string, argument?: string, fields?: readonly FieldProblem[]) {
    super(message, {
      extensions: {
        code: 'BAD_USER_INPUT',
        ...(argument === undefined ? {} : { argument }),
        ...(fields === undefined ? {} : { fields }),
      },
    });
  }
}

/** The client did not authenticate to the gateway. */
export class UnauthenticatedError extends GatewayError {
  readonly code = 'UNAUTHENTICATED';
  constructor(message = 'A valid bearer token is required.') {
    super(message, { extensions: { code: 'UNAUTHENTICATED' } });
  }
}

/**
 * The caller lacks a scope the field requires; no upstream call is made.
 * `requiredScopes` names the scopes that would have let it run.
 */
export class ForbiddenError extends GatewayError {
  readonly code = 'FORBIDDEN';
  constructor(message: string, requiredScopes?: readonly string[]) {
    super(message, {
      extensions:
        requiredScopes === undefined
          ? { code: 'FORBIDDEN' }
          : { code: 'FORBIDDEN', requiredScopes: [...new Set(requiredScopes)] },
    });
  }
}

/** Too many failed sign-ins: refused without asking vRA, with HTTP 429. */
export class RateLimitedError extends GatewayError {
  readonly code = 'RATE_LIMITED';
  constructor(message: string, retryAfterSeconds: number) {
    super(message, {
      extensions: {
        code: 'RATE_LIMITED',
        retryAfter: retryAfterSeconds,
        http: { status: 429, headers: { 'retry-after': String(retryAfterSeconds) } },
      },
    });
  }
}

/** The audit log cannot be written: the mutation is not run. */
export class AuditLogUnavailableError extends GatewayError {
  readonly code = 'AUDIT_UNAVAILABLE';
  constructor() {
    super('The audit log cannot be written: changes are refused until it can be again.', {
      extensions: { code: 'AUDIT_UNAVAILABLE' },
    });
  }
}

/**
 * The replicas' shared session store (Redis) cannot confirm a session's start
 * or end: nothing is promised, the caller tries again. Not an appliance's
 * failure, so without `extensions.upstream`.
 */
export class SessionsUnavailableError extends GatewayError {
  readonly code = 'UPSTREAM_UNAVAILABLE';
  constructor(message: string, retryAfterSeconds = 5) {
    super(message, { extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: retryAfterSeconds } });
  }
}

/**
 * The operation (a batch: its operations together; a subscription: one
 * event) has made all the upstream calls MAX_UPSTREAM_CALLS_PER_OPERATION
 * allows: the call is not made and the field that needed it fails alone,
 * with the code of the estimate's refusal.
 */
export class UpstreamCallLimitError extends GatewayError {
  readonly code = 'GRAPHQL_VALIDATION_FAILED';
  constructor(limit: number) {
    super(
      `The operation has made the ${limit} upstream calls it may (MAX_UPSTREAM_CALLS_PER_OPERATION): this field needed one more and was not served. Ask for fewer items (\`first\`) or split the operation.`,
      { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
    );
  }
}

/** Which API an appliance speaks: vRA 7 (catalog-service) or 8 (Aria Automation); NSX-v or NSX-T (Policy API). */
export type ApiGeneration = 'vRA 7' | 'vRA 8' | 'NSX-v' | 'NSX-T';

/** The field or mutation has no counterpart on the appliance's generation; no upstream call is made. */
export class NotSupportedError extends GatewayError {
  readonly code = 'NOT_SUPPORTED';
  constructor(what: string, generation: ApiGeneration) {
    super(`${what} has no counterpart on ${generation}: the appliance behind it cannot do it.`, {
      extensions: { code: 'NOT_SUPPORTED', generation },
    });
  }
}

/**
 * Base of every failure of an upstream call; carries `extensions.upstream`.
 * Whatever the upstream said goes through redaction once more here: no
 * secret of the process reaches a client in any form.
 */
export abstract class UpstreamError extends GatewayError {
  readonly upstream: UpstreamDetail;
  constructor(code: ErrorCode, message: string, upstream: UpstreamDetail) {
    const clean = (text: string | null) => (text === null ? null : redactSecrets(text));
    const detail = { ...upstream, code: clean(upstream.code), message: clean(upstream.message) };
    super(redactSecrets(message), { extensions: { code, upstream: detail } });
    this.upstream = detail;
  }
}

/** No answer within `UPSTREAM_TIMEOUT_MS`. */
export class UpstreamTimeoutError extends UpstreamError {
  readonly code = 'UPSTREAM_TIMEOUT';
  constructor(service: UpstreamService, timeoutMs: number) {
    super('UPSTREAM_TIMEOUT', `${serviceLabel[service]} did not answer within ${timeoutMs} ms.`, {
      service,
      status: null,
      code: null,
      message: null,
    });
  }
}

/** Connection refused or reset, 502/503/504, or the upstream is shed by its circuit breaker. */
export class UpstreamUnavailableError extends UpstreamError {
  readonly code = 'UPSTREAM_UNAVAILABLE';
  constructor(service: UpstreamService, reason: string, status: number | null = null) {
    super('UPSTREAM_UNAVAILABLE', `${serviceLabel[service]} is unavailable: ${reason}.`, {
      service,
      status,
      code: null,
      message: null,
    });
  }
}

/** A body that is not what the upstream documents, or a missing header it promises. */
export class UpstreamBadResponseError extends UpstreamError {
  readonly code = 'UPSTREAM_BAD_RESPONSE';
  constructor(service: UpstreamService, reason: string, status: number | null = null) {
    super(
      'UPSTREAM_BAD_RESPONSE',
      `${serviceLabel[service]} sent an unexpected answer: ${reason}.`,
      {
        service,
        status,
        code: null,
        message: null,
      },
    );
  }
}

/** A body past the most bytes its call allowed; `limit` is that bound. */
export class UpstreamBodyTooLargeError extends UpstreamBadResponseError {
  readonly limit: number;
  constructor(service: UpstreamService, limit: number, status: number | null = null) {
    super(service, `a body larger than ${limit} bytes`, status);
    this.limit = limit;
  }
}

/** An upstream answered with a non-success status; the code follows the status. */
export class UpstreamStatusError extends UpstreamError {
  readonly code: ErrorCode;
  readonly status: number;
  /** The answer's `Content-Type`, when known: tells whose error body it was (never sent to clients). */
  readonly contentType: string | undefined;
  /** `errorCode` overrides the mapping (see `notTheCallers`). */
  constructor(
    service: UpstreamService,
    status: number,
    code: string | null,
    message: string | null,
    errorCode: ErrorCode = codeForUpstreamAnswer(service, status, code, message),
    contentType?: string,
  ) {
    const said = message === null ? '' : `: ${message}`;
    super(errorCode, `${serviceLabel[service]} answered ${status}${said}`, {
      service,
      status,
      code,
      message,
    });
    this.code = errorCode;
    this.status = status;
    this.contentType = contentType;
  }
}

export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
    case 412:
      return 'CONFLICT';
    case 502:
    case 503:
    case 504:
      return 'UPSTREAM_UNAVAILABLE';
    default:
      return 'UPSTREAM_ERROR';
  }
}

/**
 * Upstream error codes that mean the caller's request clashes with what is
 * there (a name already taken, a stale revision): CONFLICT whatever the
 * status. NSX: 213 a duplicate name, 101 concurrent object access.
 */
const conflictCodes: Record<UpstreamService, ReadonlySet<string>> = {
  vro: new Set(),
  vra: new Set(),
  nsx: new Set(['101', '213']),
};

/**
 * Upstream error codes that mean the caller sent something invalid:
 * BAD_USER_INPUT on any 4xx. vRA: 10101 invalid argument.
 */
const invalidInputCodes: Record<UpstreamService, ReadonlySet<string>> = {
  vro: new Set(),
  vra: new Set(['10101']),
  nsx: new Set(),
};

/** Statuses by which an appliance refuses what it was sent: a value, a file, a size. */
const refusedRequestStatuses: ReadonlySet<number> = new Set([400, 413, 414, 422]);

/** Some appliances name a duplicate only in their words (vRO has no codes at all). */
const duplicateWords = /\balready exists?\b|\bduplicate\b/i;

/**
 * The contract code for an upstream's error answer, in one place: by status,
 * refined by the upstream's own error code. A refusal the caller caused (an
 * invalid or ill-typed value, a file that is not a package) is
 * BAD_USER_INPUT; a duplicate name or a stale version CONFLICT;
 * UPSTREAM_ERROR is left for failures of the appliance itself (5xx, and
 * 4xx that say the gateway spoke wrongly: 405, 406, 415).
 */
export function codeForUpstreamAnswer(
  service: UpstreamService,
  status: number,
  code: string | null,
  message: string | null,
): ErrorCode {
  const byStatus = codeForStatus(status);
  if (status < 400 || status >= 500 || byStatus !== 'UPSTREAM_ERROR') return byStatus;
  if (code !== null && conflictCodes[service].has(code)) return 'CONFLICT';
  if (code !== null && invalidInputCodes[service].has(code)) return 'BAD_USER_INPUT';
  if (!refusedRequestStatuses.has(status)) return byStatus;
  return message !== null && duplicateWords.test(message) ? 'CONFLICT' : 'BAD_USER_INPUT';
}

/**
 * The same failure as the appliance's own (UPSTREAM_ERROR) when it refused a
 * request the caller had no part in (e.g. the service account's token
 * request): a 400 there is the operator's to fix, not the caller's.
 */
export function notTheCallers(error: unknown): unknown {
  if (!(error instanceof UpstreamStatusError)) return error;
  if (error.code !== 'BAD_USER_INPUT' && error.code !== 'CONFLICT') return error;
  const { service, status, code, message } = error.upstream;
  return new UpstreamStatusError(service, status ?? error.status, code, message, 'UPSTREAM_ERROR');
}

/**
 * `extensions.retryAfter` (whole seconds, at least 1) on an error a client may
 * try again later (UPSTREAM_UNAVAILABLE, UPSTREAM_TIMEOUT), when the gateway
 * knows when: the appliance's own Retry-After, or the circuit's time left.
 */
export function withRetryAfter<E extends GatewayError>(error: E, afterMs: number | undefined): E {
  if (
    afterMs !== undefined &&
    (error.code === 'UPSTREAM_UNAVAILABLE' || error.code === 'UPSTREAM_TIMEOUT')
  ) {
    (error.extensions as Record<string, unknown>)['retryAfter'] = Math.max(
      1,
      Math.ceil(afterMs / 1000),
    );
  }
  return error;
}

/** True for an upstream 404: by-id queries answer null instead of an error. */
export function isNotFound(error: unknown): boolean {
  return error instanceof UpstreamStatusError && error.status === 404;
}

/** True for an upstream 409 or 412: a concurrent change. */
export function isConflict(error: unknown): boolean {
  return error instanceof UpstreamStatusError && (error.status === 409 || error.status === 412);
}

/** Runs `load` and answers null instead of throwing when the upstream says 404. */
export async function nullOnNotFound<T>(load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}
