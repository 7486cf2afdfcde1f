import { connect } from 'node:net';

/** What came back on the wire for one request, and how the connection ended. */
export interface RawExchange {
  /** `HTTP/1.1 200 OK` or undefined when no status line came back. */
  statusLine: string | undefined;
  status: number | undefined;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Body bytes received (after the header block). */
  body: Buffer;
  /** Number of `data` events that carried body bytes. */
  bodyChunks: number;
  /** `reset` for ECONNRESET, `closed` for an orderly close by the server. */
  ended: 'reset' | 'closed';
}

/**
 * Sends one HTTP/1.1 request (and `body`, whose length the caller declares) over a
 * plain socket (`Connection: close`) and
 * records the raw answer, so that tests can see what a client library hides:
 * a Content-Length that is not honoured, a reset after the headers, a body in drips.
 */
export function rawRequest(
  url: URL,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    let headerEnd = -1;
    let bodyChunks = 0;
    let size = 0;
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      size += chunk.length;
      if (headerEnd < 0) {
        headerEnd = Buffer.concat(received).indexOf('\r\n\r\n');
        if (headerEnd >= 0 && size > headerEnd + 4) bodyChunks += 1;
      } else bodyChunks += 1;
    });
    const finish = (ended: RawExchange['ended']): void => {
      const all = Buffer.concat(received);
      const end = all.indexOf('\r\n\r\n');
      const head = end < 0 ? '' : all.subarray(0, end).toString('latin1');
      const [statusLine, ...lines] = head === '' ? [] : head.split('\r\n');
      const parsed: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = statusLine === undefined ? undefined : Number(statusLine.split(' ')[1]);
      resolve({
        statusLine,
        status,
        headers: parsed,
        body: end < 0 ? Buffer.alloc(0) : all.subarray(end + 4),
        bodyChunks,
        ended,
      });
    };
    let settled = false;
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      if (error.code === 'ECONNRESET') finish('reset');
      else reject(error);
    });
    socket.on('close', () => {
      if (settled) return;
      settled = true;
      finish('closed');
    });
    const target = `${url.pathname}${url.search}`;
    const lines = [
      `${method} ${target} HTTP/1.1`,
      `Host: ${url.host}`,
      'Connection: close',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
  });
}

/** The body of an exchange, de-chunked when it came with `Transfer-Encoding: chunked`. */
export function bodyText(exchange: RawExchange): string {
  if (exchange.headers['transfer-encoding'] !== 'chunked') return exchange.body.toString('utf8');
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = exchange.body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(exchange.body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(exchange.body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts).toString('utf8');
}
