import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import type { AddressInfo } from 'node:net';
import type { Pool } from 'undici';

/**
 * Runs a bench-only floor server (bare proxy, bare yoga) as the bench expects:
 * kept-alive connections, {"url":"http://127.0.0.1:<port>"} on stdout once
 * listening, and SIGTERM closing the server, then its upstream pool.
 */
export function serveFloor(server: Server, pool: Pool): void {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void pool.close().then(() => process.exit(0)));
  });
}

/** What a client POSTs: the GraphQL request's JSON body. */
export interface PostedParams {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/**
 * A node:http listener for POSTed JSON operations with no framework: the body
 * read and JSON-parsed, `run` given its params, the result JSON-stringified and
 * sent with `res.end`. What the lean floors put under their GraphQL engine.
 */
export function postedOperations(
  run: (params: PostedParams) => ExecutionResult | PromiseLike<ExecutionResult>,
): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const params = JSON.parse(Buffer.concat(chunks).toString('utf8')) as PostedParams;
      void Promise.resolve(run(params)).then((result) => {
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify(result));
      });
    });
  };
}
