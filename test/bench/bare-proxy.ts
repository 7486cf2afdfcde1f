/**
 * The floor any extra hop costs: a bare pass-through HTTP proxy (node:http in,
 * an undici pool out, no parsing, no logging). Bench only. Prints
 * {"url":"http://127.0.0.1:<port>"} once listening; SIGTERM stops it.
 *
 *   node test/bench/bare-proxy.ts <target origin>
 */
import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';
import { serveFloor } from './serve-floor.ts';

const target = process.argv[2];
if (target === undefined) throw new Error('usage: bare-proxy.ts <target origin>');
const pool = new Pool(target, { connections: 256 });
const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host']);

const server = createServer((request, response) => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !hopByHop.has(name)) headers[name] = value;
  }
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  pool
    .request({
      method: request.method as 'GET',
      path: request.url ?? '/',
      headers,
      body: hasBody ? request : null,
    })
    .then(async (answer) => {
      const sent: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !hopByHop.has(name)) sent[name] = value;
      }
      response.writeHead(answer.statusCode, sent);
      await pipeline(answer.body, response);
    })
    .catch(() => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
});
serveFloor(server, pool);
