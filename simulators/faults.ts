/**
 * The one fault mechanism of the three simulators: a plan of rules, each a
 * request match (method, path), a fault, and how many requests (or what share
 * of them) get it. Every simulator serves it the same way, before its own
 * routes; only the bodies are its own (its error document, its broken body).
 */
import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RecordedRequest } from './recorded-request.ts';

/** What a simulator can be told to do wrong. */
export type Fault =
  /**
   * Answer normally, but only after `ms` (nothing at all when the client leaves
   * first); a function decides each request's delay as it arrives.
   */
  | { kind: 'delay'; ms: number | ((response: ServerResponse) => number) }
  /**
   * Answer this status instead. A string body is sent as it is (in the
   * simulator's error media type unless `contentType` says otherwise), any
   * other body as JSON; without one, the simulator's own error document.
   */
  | {
      kind: 'status';
      status: number;
      body?: unknown;
      contentType?: string;
      headers?: Record<string, string>;
    }
  /** Reset the connection (TCP RST) without answering. */
  | { kind: 'reset' }
  /** Send the status line, headers (with the full Content-Length) and half the body, then reset the connection. */
  | { kind: 'reset-mid-body' }
  /** Answer 200 with a body that does not parse, in the simulator's content type. */
  | { kind: 'malformed' }
  /** Promise the full Content-Length, send half the body, then close the connection. */
  | { kind: 'truncated' }
  /** Send the real answer (full Content-Length) `bytesPerTick` bytes every `tickMs`. */
  | { kind: 'drip'; bytesPerTick: number; tickMs: number };

/** Which requests: every one unless narrowed by method and decoded path. */
export interface RequestMatch {
  /** Any case. */
  method?: string;
  /** A string is the exact decoded path; a pattern is tested against it. */
  path?: string | RegExp;
}

export function matches(match: RequestMatch, request: RecordedRequest): boolean {
  const { method, path } = match;
  if (method !== undefined && method.toUpperCase() !== request.method) return false;
  if (path === undefined) return true;
  return typeof path === 'string' ? path === request.path : path.test(request.path);
}

export interface FaultRule extends RequestMatch {
  fault: Fault;
  /** How many matching requests get the fault (default: all until cleared). */
  times?: number;
  /** Chance that a matching request gets the fault (default 1). */
  probability?: number;
}

export interface FaultPlan {
  /** Adds a rule; the first matching rule wins. */
  inject(rule: FaultRule): void;
  clear(): void;
}

/** A body in the simulator's own media type. */
export interface SimBody {
  body: string;
  contentType: string;
}

/** JSON cut short: what the JSON simulators answer for a `malformed` fault. */
export const brokenJson: SimBody = { body: '{"broken": [tru', contentType: 'application/json' };

/** What faults answer in each simulator's own terms. */
export interface FaultBodies {
  /** The 200 body of a `malformed` fault: the simulator's media type, not parseable. */
  malformed: SimBody;
  /** The upstream's error document for a status (a `status` fault without a body). */
  error(status: number): SimBody;
}

export type Answer = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

type BodyFault = Extract<Fault, { kind: 'reset-mid-body' | 'truncated' | 'drip' }>;

/** Wraps a simulator's handler with its fault plan. */
export function withFaults(
  handler: Answer,
  bodies: FaultBodies,
): { handler: Answer; faults: FaultPlan } {
  const rules: FaultRule[] = [];
  const pick = (request: RecordedRequest): Fault | undefined => {
    const index = rules.findIndex(
      (rule) =>
        matches(rule, request) &&
        (rule.probability === undefined || Math.random() < rule.probability),
    );
    const rule = rules[index];
    if (rule === undefined) return undefined;
    if (rule.times !== undefined) {
      rule.times -= 1;
      if (rule.times <= 0) rules.splice(index, 1);
    }
    return rule.fault;
  };
  const faulty: Answer = async (request, response) => {
    const fault = pick(request);
    switch (fault?.kind) {
      case undefined:
        return handler(request, response);
      case 'delay':
        if (!(await pause(response, typeof fault.ms === 'number' ? fault.ms : fault.ms(response))))
          return;
        return handler(request, response);
      case 'status': {
        const { body, contentType } = statusBody(fault, bodies);
        response.writeHead(fault.status, {
          'content-type': contentType,
          'content-length': Buffer.byteLength(body),
          ...fault.headers,
        });
        response.end(body);
        return;
      }
      case 'reset':
        response.socket?.resetAndDestroy();
        return;
      case 'malformed':
        response.writeHead(200, {
          'content-type': bodies.malformed.contentType,
          'content-length': Buffer.byteLength(bodies.malformed.body),
        });
        response.end(bodies.malformed.body);
        return;
      case 'reset-mid-body':
      case 'truncated':
      case 'drip':
        return handler(request, capture(response, fault));
    }
  };
  return {
    handler: faulty,
    faults: {
      inject: (rule) => rules.push({ ...rule }),
      clear: () => rules.splice(0),
    },
  };
}

function statusBody(fault: Extract<Fault, { kind: 'status' }>, bodies: FaultBodies): SimBody {
  if (fault.body === undefined) {
    const own = bodies.error(fault.status);
    return { body: own.body, contentType: fault.contentType ?? own.contentType };
  }
  if (typeof fault.body === 'string') {
    return {
      body: fault.body,
      contentType: fault.contentType ?? bodies.error(fault.status).contentType,
    };
  }
  return { body: JSON.stringify(fault.body), contentType: fault.contentType ?? 'application/json' };
}

/** Waits `ms`; false when the connection went away meanwhile. */
function pause(response: ServerResponse, ms: number): Promise<boolean> {
  if (response.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      response.off('close', onClose);
      resolve(!response.destroyed);
    }, ms);
    response.once('close', onClose);
  });
}

type Chunk = string | Uint8Array;
type Callback = (error?: Error | null) => void;

/**
 * Holds back what the handler answers (on the real response, so that
 * setHeader, getHeader and events keep working), then sends it the faulty way.
 */
function capture(response: ServerResponse, fault: BodyFault): ServerResponse {
  const chunks: Buffer[] = [];
  const toBuffer = (chunk: Chunk, encoding?: unknown): Buffer =>
    typeof chunk === 'string'
      ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
      : Buffer.from(chunk);
  const held = response as unknown as Record<'writeHead' | 'write' | 'end', unknown>;
  held.writeHead = (
    status: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    maybeHeaders?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): ServerResponse => {
    response.statusCode = status;
    if (typeof reasonOrHeaders === 'string') response.statusMessage = reasonOrHeaders;
    const headers = typeof reasonOrHeaders === 'string' ? maybeHeaders : reasonOrHeaders;
    for (const [name, value] of headerPairs(headers)) response.setHeader(name, value);
    return response;
  };
  held.write = (chunk: Chunk, encoding?: unknown, callback?: Callback): boolean => {
    chunks.push(toBuffer(chunk, encoding));
    const done = typeof encoding === 'function' ? (encoding as Callback) : callback;
    if (done !== undefined) queueMicrotask(() => done());
    return true;
  };
  held.end = (chunk?: Chunk | Callback, encoding?: unknown, callback?: Callback) => {
    if (chunk !== undefined && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
    delete held.writeHead;
    delete held.write;
    delete held.end;
    void sendFaulty(response, Buffer.concat(chunks), fault);
    const done =
      typeof chunk === 'function'
        ? chunk
        : typeof encoding === 'function'
          ? (encoding as Callback)
          : callback;
    if (done !== undefined) queueMicrotask(() => done());
    return response;
  };
  return response;
}

function headerPairs(
  headers: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined,
): Array<[string, OutgoingHttpHeader]> {
  if (headers === undefined) return [];
  if (!Array.isArray(headers)) {
    return Object.entries(headers).filter(
      (entry): entry is [string, OutgoingHttpHeader] => entry[1] !== undefined,
    );
  }
  const pairs: Array<[string, OutgoingHttpHeader]> = [];
  if (headers.every((item) => Array.isArray(item))) {
    for (const [name, value] of headers) {
      if (name !== undefined && value !== undefined) pairs.push([name, value]);
    }
    return pairs;
  }
  for (let i = 0; i + 1 < headers.length; i += 2) {
    pairs.push([String(headers[i]), headers[i + 1] as OutgoingHttpHeader]);
  }
  return pairs;
}

/** Headers with the full Content-Length, then the body cut, reset, or dripped. */
async function sendFaulty(response: ServerResponse, body: Buffer, fault: BodyFault): Promise<void> {
  response.removeHeader('transfer-encoding');
  response.setHeader('content-length', body.length);
  response.writeHead(response.statusCode);
  const socket = response.socket;
  if (fault.kind === 'drip') {
    const step = Math.max(1, fault.bytesPerTick);
    for (let at = 0; at < body.length; at += step) {
      if (!(await writeAll(response, body.subarray(at, at + step)))) return;
      if (at + step < body.length && !(await pause(response, fault.tickMs))) return;
    }
    response.end();
    return;
  }
  const half = body.subarray(0, Math.floor(body.length / 2));
  if (!(await writeAll(response, half))) return;
  // Let the client read the headers and the first half before the connection goes.
  if (!(await pause(response, 20))) return;
  if (fault.kind === 'reset-mid-body') socket?.resetAndDestroy();
  else {
    socket?.end();
    socket?.destroySoon();
  }
}

/** Writes and waits until the bytes are handed to the socket; false when the connection is gone. */
function writeAll(response: ServerResponse, bytes: Buffer): Promise<boolean> {
  if (response.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    // An empty write would send nothing, but the headers must still go out.
    if (bytes.length === 0) response.flushHeaders();
    response.write(bytes, (error) => resolve(error === undefined || error === null));
  });
}
