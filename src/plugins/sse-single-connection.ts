import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { Plugin } from 'graphql-yoga';
import { callerKey } from '../auth/caller-key.ts';
import { requestAuth } from '../auth/request-auth.ts';
import { errorResponse } from './error-response.ts';

const tokenHeader = 'x-graphql-event-stream-token';
/** A reserved stream that no client connects to within this time is forgotten. */
const reservationMs = 30_000;
const pingMs = 12_000;
const encoder = new TextEncoder();
/** Bytes of events one stream may hold that its client has not taken yet. */
export const maxQueuedBytesPerStream = 1024 * 1024;
/** Operations running at once on one stream. */
export const maxOperationsPerStream = 100;

interface Stream {
  /** Whom the stream counts against (see callerKey). */
  owner: string;
  /** Messages waiting for the client to connect (the protocol allows sending before it does). */
  queued: Uint8Array[];
  queuedBytes: number;
  /** Once connected: queues a message for the socket. */
  write: ((bytes: Uint8Array) => void) | undefined;
  /** Bytes that can still be queued: none while the client does not read what it was sent. */
  room: () => number;
  operations: Map<string, AbortController>;
  expiry: NodeJS.Timeout;
}

const congested = {
  message: 'The event stream is not being read fast enough: this operation was stopped.',
  extensions: { code: 'RATE_LIMITED' },
};

const message = (event: 'next' | 'complete', data: unknown): string =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The single-connection mode of the GraphQL over SSE protocol (graphql-sse's
 * client with `singleConnection: true`), on the GraphQL endpoint itself: PUT
 * reserves a stream and answers its token, GET with the token opens it, POST
 * with the token starts an operation whose results arrive on the stream, DELETE
 * stops one. Every operation runs as a request of its own through the whole
 * gateway (yoga's distinct-connection SSE, with the POST's headers), so client
 * tokens, CSRF, limits, the allow-list, logs and error codes apply as to any
 * other request. Requests without a token, PUT aside, are not this plugin's.
 *
 * A stream whose client does not read it holds at most 1 MiB of events: an
 * operation whose next event does not fit is stopped (its upstream work
 * too), and a POST to a stream that holds three quarters of that, or already
 * runs 100 operations, is refused (429, RATE_LIMITED). One client (caller, or address
 * when anonymous) holds at most `maxStreamsPerClient` streams
 * (MAX_SUBSCRIPTIONS_PER_CLIENT), reserved or open.
 */
export function sseSingleConnection(
  endpoint: string,
  /** Runs an operation's own request; `from` is the client's POST that started it. */
  run: (request: Request, from: Request) => Response | Promise<Response>,
  maxStreamsPerClient: number,
): Plugin {
  const streams = new Map<string, Stream>();
  const owned = new Map<string, number>();

  const close = (token: string): void => {
    const stream = streams.get(token);
    if (stream === undefined) return;
    streams.delete(token);
    const left = (owned.get(stream.owner) ?? 1) - 1;
    if (left > 0) owned.set(stream.owner, left);
    else owned.delete(stream.owner);
    clearTimeout(stream.expiry);
    for (const operation of stream.operations.values()) operation.abort();
  };
  /** Queues `text` when it fits; false when the client is not taking what it was sent. */
  const send = (stream: Stream, text: string): boolean => {
    const bytes = encoder.encode(text);
    if (bytes.byteLength > stream.room()) return false;
    if (stream.write === undefined) {
      stream.queued.push(bytes);
      stream.queuedBytes += bytes.byteLength;
    } else stream.write(bytes);
    return true;
  };

  const reserve = (request: Request): Response => {
    const owner = callerKey(requestAuth(request), undefined);
    const count = owned.get(owner) ?? 0;
    if (count >= maxStreamsPerClient) {
      return errorResponse(
        429,
        'RATE_LIMITED',
        `This client already holds ${count} event streams, the most MAX_SUBSCRIPTIONS_PER_CLIENT allows: close one before reserving another.`,
      );
    }
    owned.set(owner, count + 1);
    const token = randomUUID();
    const stream: Stream = {
      owner,
      queued: [],
      queuedBytes: 0,
      write: undefined,
      room: () => maxQueuedBytesPerStream - stream.queuedBytes,
      operations: new Map(),
      expiry: setTimeout(() => close(token), reservationMs).unref(),
    };
    streams.set(token, stream);
    return new Response(token, {
      status: 201,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  };

  const connect = (token: string, stream: Stream, socket: Writable | undefined): Response => {
    if (stream.write !== undefined) {
      return errorResponse(409, 'BAD_USER_INPUT', 'This event stream is already open.');
    }
    clearTimeout(stream.expiry);
    let ping: NodeJS.Timeout | undefined;
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          stream.write = (bytes) => controller.enqueue(bytes);
          // Node's own buffer of the answer counts too: the server adapter reads
          // the body as fast as it comes, whether or not the socket drains.
          stream.room = () => (controller.desiredSize ?? 0) - (socket?.writableLength ?? 0);
          stream.write(encoder.encode(':\n\n'));
          for (const bytes of stream.queued.splice(0)) stream.write(bytes);
          stream.queuedBytes = 0;
          ping = setInterval(() => send(stream, ':\n\n'), pingMs);
        },
        cancel() {
          clearInterval(ping);
          close(token);
        },
      },
      // What the socket has not taken yet, counted in bytes.
      { highWaterMark: maxQueuedBytesPerStream, size: (chunk) => chunk.byteLength },
    );
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      },
    });
  };

  const start = async (request: Request, stream: Stream): Promise<Response> => {
    let params: Record<string, unknown>;
    try {
      const parsed: unknown = await request.json();
      if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
      params = parsed as Record<string, unknown>;
    } catch {
      return errorResponse(400, 'BAD_USER_INPUT', 'The request body must be a JSON object.');
    }
    const { extensions, ...operation } = params;
    const { operationId, ...otherExtensions } = (extensions ?? {}) as Record<string, unknown>;
    if (typeof operationId !== 'string' || operationId === '') {
      return errorResponse(400, 'BAD_USER_INPUT', 'extensions.operationId is missing.');
    }
    if (stream.operations.has(operationId)) {
      return errorResponse(409, 'BAD_USER_INPUT', `Operation ${operationId} already exists.`);
    }
    if (
      stream.room() < maxQueuedBytesPerStream / 4 ||
      stream.operations.size >= maxOperationsPerStream
    ) {
      return errorResponse(
        429,
        'RATE_LIMITED',
        `The event stream is not being read fast enough (or runs ${maxOperationsPerStream} operations): read it, or wait, before starting another operation.`,
      );
    }
    const abort = new AbortController();
    stream.operations.set(operationId, abort);
    const headers = new Headers(request.headers);
    headers.delete(tokenHeader);
    headers.delete('content-length');
    headers.set('content-type', 'application/json');
    headers.set('accept', 'text/event-stream');
    const url = new URL(request.url);
    url.searchParams.delete('token');
    const answer = await run(
      new Request(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...operation, extensions: otherExtensions }),
        signal: abort.signal,
      }),
      request,
    );
    if (!(answer.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      stream.operations.delete(operationId);
      return answer; // refused before it ran (token, origin, limits): the POST says so
    }
    void relay(answer, operationId, stream, abort);
    return new Response(null, { status: 202 });
  };

  const relay = async (
    answer: Response,
    id: string,
    stream: Stream,
    abort: AbortController,
  ): Promise<void> => {
    if (answer.body === null) return;
    const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
    abort.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}));
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: ?(.+)$/m.exec(block)?.[1];
          if (/^event: ?next$/m.test(block) && data !== undefined) {
            const sent = send(
              stream,
              message('next', { id, payload: JSON.parse(data) as unknown }),
            );
            if (!sent) {
              // The client does not read its stream: the operation is stopped, not queued for ever.
              stream.operations.delete(id);
              abort.abort();
              send(stream, message('next', { id, payload: { errors: [congested] } }));
              send(stream, message('complete', { id }));
              return;
            }
          }
        }
      }
    } catch {
      // the stream closed or the operation was stopped: nothing more to send
    } finally {
      if (!abort.signal.aborted && stream.operations.delete(id)) {
        send(stream, message('complete', { id }));
      }
    }
  };

  return {
    async onRequest(payload) {
      const { request, url } = payload;
      const endResponse = (response: Response): void => payload.endResponse(response);
      if (url.pathname !== endpoint) return;
      if (request.method === 'PUT') {
        endResponse(reserve(request));
        return;
      }
      const token = request.headers.get(tokenHeader) ?? url.searchParams.get('token');
      if (token === null) return;
      const stream = streams.get(token);
      if (stream === undefined) {
        endResponse(errorResponse(404, 'BAD_USER_INPUT', 'No event stream has this token.'));
      } else if (request.method === 'GET') {
        const { res } = payload.serverContext as { res?: ServerResponse };
        endResponse(connect(token, stream, res));
      } else if (request.method === 'POST') {
        endResponse(await start(request, stream));
      } else if (request.method === 'DELETE') {
        const id = url.searchParams.get('operationId') ?? '';
        const operation = stream.operations.get(id);
        stream.operations.delete(id);
        operation?.abort();
        endResponse(new Response(null, { status: 200 }));
      } else {
        endResponse(
          new Response(null, { status: 405, headers: { allow: 'GET, POST, PUT, DELETE' } }),
        );
      }
    },
  };
}
