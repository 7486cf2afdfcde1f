import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from './sim-server.ts';

/** What a simulator can be told to do wrong. */
export type Fault =
  /** Answer normally, but only after `ms`. */
  | { kind: 'delay'; ms: number }
  /** Answer this status (and body) instead. */
  | {
      kind: 'status';
      status: number;
      body?: string;
      contentType?: string;
      headers?: Record<string, string>;
    }
  /** Close the connection without answering. */
  | { kind: 'reset' }
  /** Send the status line, headers and half the body, then reset the connection. */
  | { kind: 'reset-mid-body' }
  /** Answer 200 with a body that does not parse, in the simulator's content type. */
  | { kind: 'malformed' }
  /** Promise the full length, send half the body, then end the connection. */
  | { kind: 'truncated' }
  /** Send the real answer a few bytes at a time. */
  | { kind: 'drip'; bytesPerTick: number; tickMs: number };

export interface FaultRule {
  fault: Fault;
  method?: string;
  /** Matched against the decoded path. */
  path?: RegExp;
  /** How many matching requests get the fault (default: all until cleared). */
  times?: number;
  /** Chance that a matching request gets the fault (default 1). */
  probability?: number;
}

export interface FaultSwitch {
  /** Adds a rule; the first matching rule wins. */
  inject(rule: FaultRule): void;
  clear(): void;
}

export type Answer = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

/** Wraps a simulator's handler with switchable faults. */
export function withFaults(
  handler: Answer,
  malformed: { body: string; contentType: string },
): { handler: Answer; faults: FaultSwitch } {
  const rules: FaultRule[] = [];
  const pick = (request: RecordedRequest): Fault | undefined => {
    const index = rules.findIndex(
      (rule) =>
        (rule.method === undefined || rule.method === request.method) &&
        (rule.path === undefined || rule.path.test(request.path)) &&
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
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        return handler(request, response);
      case 'status':
        response.writeHead(fault.status, {
          'content-type': fault.contentType ?? malformed.contentType,
          ...fault.headers,
        });
        response.end(fault.body ?? '');
        return;
      case 'reset':
        response.socket?.destroy();
        return;
      case 'malformed':
        response.writeHead(200, { 'content-type': malformed.contentType });
        response.end(malformed.body);
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

/** A response whose body is held back and then sent the faulty way. */
function capture(
  response: ServerResponse,
  fault: Extract<Fault, { kind: 'reset-mid-body' | 'truncated' | 'drip' }>,
): ServerResponse {
  const chunks: Buffer[] = [];
  let status = 200;
  let headers: Record<string, unknown> = {};
  const proxy = Object.create(response) as ServerResponse;
  proxy.writeHead = ((code: number, h?: Record<string, unknown>) => {
    status = code;
    headers = { ...h };
    return proxy;
  }) as ServerResponse['writeHead'];
  proxy.write = ((chunk: string | Buffer) => {
    chunks.push(Buffer.from(chunk));
    return true;
  }) as ServerResponse['write'];
  proxy.end = ((chunk?: string | Buffer) => {
    if (chunk !== undefined) chunks.push(Buffer.from(chunk));
    const body = Buffer.concat(chunks);
    const half = body.subarray(0, Math.floor(body.length / 2));
    const sent = { ...headers, 'content-length': String(body.length) } as Record<string, string>;
    response.writeHead(status, sent);
    if (fault.kind === 'drip') void drip(response, body, fault.bytesPerTick, fault.tickMs);
    else {
      response.write(half);
      if (fault.kind === 'reset-mid-body') response.socket?.destroy();
      else setTimeout(() => response.socket?.end(), 10);
    }
    return proxy;
  }) as ServerResponse['end'];
  return proxy;
}

async function drip(
  response: ServerResponse,
  body: Buffer,
  bytes: number,
  tickMs: number,
): Promise<void> {
  for (let at = 0; at < body.length && !response.destroyed; at += bytes) {
    response.write(body.subarray(at, at + bytes));
    await new Promise((resolve) => setTimeout(resolve, tickMs));
  }
  response.end();
}
