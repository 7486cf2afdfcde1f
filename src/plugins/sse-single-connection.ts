import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from './error-response.ts';

const tokenHeader = 'x-graphql-event-stream-token';
/** A reserved stream that no client connects to within this time is forgotten. */
const reservationMs = 30_000;
const pingMs = 12_000;
const encoder = new TextEncoder();

interface Stream {
  /** Messages waiting for the client to connect (the protocol allows sending before it does). */
  queued: string[];
  write: ((message: string) => void) | undefined;
  operations: Map<string, AbortController>;
  expiry: NodeJS.Timeout;
}

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
 */
export function sseSingleConnection(
  endpoint: string,
  /** Runs an operation's own request; `from` is the client's POST that started it. */
  run: (request: Request, from: Request) => Response | Promise<Response>,
): Plugin {
  const streams = new Map<string, Stream>();

  const close = (token: string): void => {
    const stream = streams.get(token);
    if (stream === undefined) return;
    streams.delete(token);
    clearTimeout(stream.expiry);
    for (const operation of stream.operations.values()) operation.abort();
  };
  const send = (stream: Stream, text: string): void => {
    if (stream.write === undefined) stream.queued.push(text);
    else stream.write(text);
  };

  const reserve = (): Response => {
    const token = randomUUID();
    streams.set(token, {
      queued: [],
      write: undefined,
      operations: new Map(),
      expiry: setTimeout(() => close(token), reservationMs).unref(),
    });
    return new Response(token, {
      status: 201,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  };

  const connect = (token: string, stream: Stream): Response => {
    if (stream.write !== undefined) {
      return errorResponse(409, 'BAD_USER_INPUT', 'This event stream is already open.');
    }
    clearTimeout(stream.expiry);
    let ping: NodeJS.Timeout | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        stream.write = (text) => controller.enqueue(encoder.encode(text));
        stream.write(':\n\n');
        for (const text of stream.queued.splice(0)) stream.write(text);
        ping = setInterval(() => stream.write?.(':\n\n'), pingMs);
      },
      cancel() {
        clearInterval(ping);
        close(token);
      },
    });
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
            send(stream, message('next', { id, payload: JSON.parse(data) as unknown }));
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
        endResponse(reserve());
        return;
      }
      const token = request.headers.get(tokenHeader) ?? url.searchParams.get('token');
      if (token === null) return;
      const stream = streams.get(token);
      if (stream === undefined) {
        endResponse(errorResponse(404, 'BAD_USER_INPUT', 'No event stream has this token.'));
      } else if (request.method === 'GET') {
        endResponse(connect(token, stream));
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
