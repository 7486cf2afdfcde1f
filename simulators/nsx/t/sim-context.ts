/**
 * What every NSX-T simulator route receives, and the manager's ways of
 * answering: JSON only, every answer checked against the Policy API
 * definitions before it leaves (an answer that is not one is a simulator bug
 * and throws), errors as the manager's error body.
 */
import type { ServerResponse } from 'node:http';
import { sendEmpty, sendJson, type RecordedRequest } from '../../sim-server.ts';
import type { NsxtState, PolicyObject } from './seed.ts';
import { assertSpec, specProblem } from './spec-check.ts';

/** Behaviour switches, read on every request. */
export interface NsxtSwitches {
  /**
   * Before each of the next N writes (PUT, or PATCH carrying `_revision`) to
   * an object that exists, another client changes that object first (its
   * `_revision` moves on and `_last_modified_user` becomes `admin`), so the
   * write is stale and answers 412.
   */
  foreignWrites: number;
}

export function defaultSwitches(): NsxtSwitches {
  return { foreignWrites: 0 };
}

/** What the simulator has answered, for tests to assert on. */
export interface NsxtCounters {
  /** 412 answers (stale or missing `_revision`), oldest first. */
  conflicts: Array<{ method: string; path: string; sent: number | null; current: number }>;
  /** Writes another client made through `foreignWrites` or `touch`. */
  foreignWrites: number;
  /**
   * Requests refused as invalid (400 and 415), oldest first: `definition`
   * names the Policy API definition the body failed, when it was that; else
   * a value rule, a missing path, a bad page parameter, a media type.
   */
  refusals: Array<{
    method: string;
    path: string;
    status: number;
    message: string;
    definition: string | null;
  }>;
  /** Answers the simulator was about to send that were not instances of their definition (simulator bugs, answered 500). */
  answerViolations: Array<{ method: string; path: string; definition: string; problem: string }>;
}

export interface NsxtCall {
  request: RecordedRequest;
  response: ServerResponse;
  state: NsxtState;
  switches: NsxtSwitches;
  counters: NsxtCounters;
  /** Decoded path segments. */
  segments: string[];
  /** The account the request authenticated as (`_last_modified_user`). */
  user: string;
  /** Major version of the manager (3: NSX-T 3.x, 4: NSX 4.x). */
  major: 3 | 4;
}

/**
 * Error codes the simulator answers with. Only the status is relied upon by
 * the gateway; the codes are the managers' as far as known
 * (docs/upstreams.md, NSX-T).
 */
export const errorCodes = {
  /** 412: "The object was modified by somebody else." */
  stale: 604,
  /** 400: a body the manager's JSON reader or validation refuses. */
  invalidBody: 255,
  /** 404: an unknown path or object. */
  notFound: 500012,
  /** 400: deleting an object another one refers to. */
  inUse: 500030,
  /** 400: changing a system-owned object. */
  systemOwned: 500071,
  /** 401: credentials refused. */
  unauthenticated: 403,
  /** 405 and 415. */
  notAllowed: 99,
} as const;

const statusNames: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  412: 'PRECONDITION_FAILED',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** The manager's error body: an `ApiError` plus `httpStatus`, which the definitions leave out. */
export function apiErrorBody(
  status: number,
  errorCode: number,
  message: string,
  moduleName = 'policy',
): Record<string, unknown> {
  const body = {
    httpStatus: statusNames[status] ?? String(status),
    error_code: errorCode,
    module_name: moduleName,
    error_message: message,
  };
  // `httpStatus` is outside the definition: checked open
  assertSpec('ApiError', body, false);
  return body;
}

export function sendError(
  call: NsxtCall,
  status: number,
  errorCode: number,
  message: string,
  definition: string | null = null,
): void {
  if (status === 400 || status === 415) {
    const { method, path } = call.request;
    call.counters.refusals.push({ method, path, status, message, definition });
  }
  sendJson(call.response, status, apiErrorBody(status, errorCode, message));
}

export function notFound(call: NsxtCall, what = call.request.path): void {
  sendError(call, 404, errorCodes.notFound, `The path=[${what}] is invalid`);
}

export function methodNotAllowed(call: NsxtCall): void {
  sendError(
    call,
    405,
    errorCodes.notAllowed,
    `The method ${call.request.method} is not supported for ${call.request.path}.`,
  );
}

/** 200 with a body that must be a `definition` (closed). */
export function sendModel(call: NsxtCall, definition: string, body: unknown): void {
  const problem = specProblem(definition, body);
  if (problem !== null) {
    const { method, path } = call.request;
    call.counters.answerViolations.push({ method, path, definition, problem });
    throw new Error(`simulator answer is not a ${definition}: ${problem}`);
  }
  sendJson(call.response, 200, body);
}

/** 200 with no body (PATCH and DELETE). */
export function sendOk(call: NsxtCall): void {
  sendEmpty(call.response, 200, { 'content-length': '0' });
}

/**
 * The request body as a JSON object, or null once an error was answered:
 * 415 for another media type, 400 for broken JSON or a body that is not an
 * object.
 */
export function readBody(call: NsxtCall): Record<string, unknown> | null {
  const contentType = (call.request.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  if (contentType !== 'application/json') {
    sendError(
      call,
      415,
      errorCodes.notAllowed,
      `Unsupported content type ${contentType === '' ? '(none)' : contentType}: application/json only.`,
    );
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.request.body.toString('utf8'));
  } catch {
    sendError(call, 400, errorCodes.invalidBody, 'The request body is not valid JSON.');
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    sendError(call, 400, errorCodes.invalidBody, 'The request body must be a JSON object.');
    return null;
  }
  return parsed as Record<string, unknown>;
}

/** Answers 400 when `body` is not a `definition`; true when it is. */
export function checkBody(call: NsxtCall, definition: string, body: unknown): boolean {
  const problem = specProblem(definition, body);
  if (problem === null) return true;
  sendError(call, 400, errorCodes.invalidBody, problem, definition);
  return false;
}

const maxPageSize = 1000;

function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number | null {
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match === null ? null : Number(match[1]);
}

/**
 * One page of `items` as a `<listDefinition>`: `cursor` (opaque, only when
 * more follow), `page_size` (default and cap 1000), `sort_by` and
 * `sort_ascending`. Answers 400 for a bad cursor or page size.
 */
export function sendPage(
  call: NsxtCall,
  listDefinition: string,
  items: readonly PolicyObject[],
): void {
  const query = call.request.query;
  let offset = 0;
  const cursor = query.get('cursor');
  if (cursor !== null) {
    const decoded = decodeCursor(cursor);
    if (decoded === null) {
      sendError(call, 400, errorCodes.invalidBody, `Invalid cursor ${cursor}.`);
      return;
    }
    offset = decoded;
  }
  let pageSize = maxPageSize;
  const rawSize = query.get('page_size');
  if (rawSize !== null) {
    const size = Number(rawSize);
    if (!/^\d+$/.test(rawSize) || size < 1) {
      sendError(call, 400, errorCodes.invalidBody, `Invalid page_size ${rawSize}.`);
      return;
    }
    pageSize = Math.min(size, maxPageSize);
  }
  const sortBy = query.get('sort_by');
  const ascending = query.get('sort_ascending') !== 'false';
  const sorted = [...items];
  if (sortBy !== null) {
    const key = (item: PolicyObject): string => JSON.stringify(item[sortBy] ?? '');
    sorted.sort((a, b) => key(a).localeCompare(key(b)) * (ascending ? 1 : -1));
  }
  const page = sorted.slice(offset, offset + pageSize);
  const body: Record<string, unknown> = { result_count: sorted.length, results: page };
  if (offset + pageSize < sorted.length) body['cursor'] = encodeCursor(offset + pageSize);
  if (sortBy !== null) {
    body['sort_by'] = sortBy;
    body['sort_ascending'] = ascending;
  }
  sendModel(call, listDefinition, body);
}
