import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * At most `max` open connections per socket peer address
 * (MAX_CONNECTIONS_PER_ADDRESS): one address cannot take every connection
 * HTTP_MAX_CONNECTIONS allows. A connection beyond it is closed at once,
 * before a byte is read. The socket peer, never a forwarded header: a header
 * is what the connecting client chose to send.
 */
export function capConnectionsPerAddress(
  server: Server,
  max: number,
  refused: (address: string) => void,
): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      refused(address);
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

interface Receiving {
  request: IncomingMessage;
  response: ServerResponse;
  socket: Socket;
  startedAt: number;
  startBytes: number;
}

/** The first second of a body is not measured: a connection's first round trips are slow. */
const graceMs = 1000;
const checkMs = 250;

function bodyExpected(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return request.headers['transfer-encoding'] !== undefined;
}

/**
 * A request body must arrive at `bytesPerSecond` on average
 * (MIN_BODY_BYTES_PER_SECOND), measured on the socket from its second second
 * on: a client that declares 1,000 bytes and sends 10 holds its connection
 * for about a second, not for HTTP_REQUEST_TIMEOUT_MS. One that falls
 * behind is answered 408 and its connection closed, as Node does for its own
 * timeouts. Measured on the socket's byte count, so that nothing here reads
 * the body.
 */
export function enforceBodyRate(
  server: Server,
  bytesPerSecond: number,
  cut: (request: IncomingMessage) => void,
): void {
  const receiving = new Set<Receiving>();
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    const now = Date.now();
    for (const entry of receiving) {
      const { request, response, socket } = entry;
      if (request.complete || socket.destroyed) {
        receiving.delete(entry);
        continue;
      }
      const elapsed = now - entry.startedAt - graceMs;
      if (elapsed <= 0) continue;
      const received = socket.bytesRead - entry.startBytes;
      if (received >= (bytesPerSecond * elapsed) / 1000) continue;
      receiving.delete(entry);
      cut(request);
      const body = JSON.stringify({
        errors: [
          {
            message: `The request body arrived slower than ${bytesPerSecond} bytes per second (MIN_BODY_BYTES_PER_SECOND).`,
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
      });
      const head = response.headersSent
        ? ''
        : 'HTTP/1.1 408 Request Timeout\r\nconnection: close\r\n' +
          'content-type: application/json; charset=utf-8\r\n' +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      socket.end(head, () => socket.destroy());
      // A client that never reads could hold the answer (and so the socket) forever.
      setTimeout(() => socket.destroy(), 1000).unref();
    }
    if (receiving.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!bodyExpected(request) || request.complete) return;
    receiving.add({
      request,
      response,
      socket: request.socket,
      startedAt: Date.now(),
      startBytes: request.socket.bytesRead,
    });
    timer ??= setInterval(check, checkMs).unref();
  });
}
