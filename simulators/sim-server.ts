import {
  createServer,
  type IncomingHttpHeaders,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  brokenJson,
  matches,
  withFaults,
  type FaultBodies,
  type FaultPlan,
  type RequestMatch,
} from './faults.ts';
import type { RecordedRequest } from './recorded-request.ts';

export type { RecordedRequest } from './recorded-request.ts';

export type SimHandler = (
  request: RecordedRequest,
  response: ServerResponse,
) => void | Promise<void>;

/** A request as it arrives, and how its exchange ends. */
export interface Arrival {
  request: RecordedRequest;
  /** `answered` once the whole answer is sent, `gone` when the connection closed first. */
  ended: Promise<'answered' | 'gone'>;
}

/** What every simulator shows its tests. */
export interface SimObserved {
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[];
  /** Faults on matching requests (delay, status, reset, malformed, truncated or dripped bodies). */
  readonly faults: FaultPlan;
  /** The next matching request to arrive (none that arrived before). */
  nextRequest(match?: RequestMatch): Promise<Arrival>;
}

export interface SimServer extends SimObserved {
  /** `http://127.0.0.1:<port>` (`https://` when served with `tls`) */
  readonly origin: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface SimServerOptions {
  port?: number;
  host?: string;
  /** What faults answer (default: broken JSON, and an empty JSON error body). */
  faultBodies?: FaultBodies;
  /** Serve HTTPS with this PEM key and certificate chain instead of HTTP. */
  tls?: { key: string; cert: string };
}

/**
 * A loopback HTTP server for a simulator: buffers each request body, records
 * the request, then hands it to the simulator's handler. A handler that throws
 * answers 500 so that a simulator bug shows as a failing test, not a hang.
 */
export async function startSimServer(
  handler: SimHandler,
  options: SimServerOptions = {},
): Promise<SimServer> {
  const requests: RecordedRequest[] = [];
  const waiting: Array<{ match: RequestMatch; arrived: (arrival: Arrival) => void }> = [];
  const faulty = withFaults(
    handler,
    options.faultBodies ?? {
      malformed: brokenJson,
      error: () => ({ body: '', contentType: 'application/json' }),
    },
  );
  const listener: RequestListener = (incoming, response) => {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const target = new URL(incoming.url ?? '/', 'http://simulator');
      const recorded: RecordedRequest = {
        method: incoming.method ?? 'GET',
        rawPath: target.pathname,
        path: target.pathname.split('/').map(safeDecode).join('/'),
        query: target.searchParams,
        headers: incoming.headers,
        body: Buffer.concat(chunks),
        receivedAt,
      };
      requests.push(recorded);
      const index = waiting.findIndex((waiter) => matches(waiter.match, recorded));
      if (index >= 0) {
        const [waiter] = waiting.splice(index, 1);
        waiter?.arrived({ request: recorded, ended: ending(response) });
      }
      Promise.resolve()
        .then(() => faulty.handler(recorded, response))
        .catch((error: unknown) => {
          if (!response.headersSent) {
            response.writeHead(500, { 'content-type': 'text/plain' });
          }
          response.end(
            `simulator error: ${error instanceof Error ? error.message : String(error)}`,
          );
        });
    });
  };
  const server =
    options.tls === undefined ? createServer(listener) : createHttpsServer(options.tls, listener);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    port,
    requests,
    faults: faulty.faults,
    nextRequest: (match = {}) =>
      new Promise((arrived) => {
        waiting.push({ match, arrived });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function ending(response: ServerResponse): Promise<'answered' | 'gone'> {
  return new Promise((resolve) => {
    response.once('close', () => resolve(response.writableFinished ? 'answered' : 'gone'));
  });
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Checks HTTP Basic credentials the way the appliances do: exact user and password. */
export function hasBasicAuth(
  headers: IncomingHttpHeaders,
  username: string,
  password: string,
): boolean {
  const expected = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
  return headers.authorization === expected;
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

export function sendText(
  response: ServerResponse,
  status: number,
  body: string,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}

export function sendEmpty(
  response: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, headers);
  response.end();
}
