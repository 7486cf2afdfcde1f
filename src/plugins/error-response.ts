import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '../errors.ts';

/** A GraphQL-over-HTTP error answer made before any operation runs (auth, limits, CSRF). */
export function errorResponse(
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * The same answer written on Node's own response, for refusals made before
 * yoga sees the request (a malformed target, an unknown host name); the
 * connection is closed after it.
 */
export function refuseRaw(
  response: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    connection: 'close',
  });
  response.end(JSON.stringify({ errors: [{ message, extensions: { code } }] }));
}

/**
 * True for a request that may run a GraphQL operation. Yoga answers every GET
 * that accepts text/html with the GraphiQL page before these plugins run; any
 * other GET may name an operation in any parameter (query, extensions, a
 * persisted document id), so it counts as one. PUT and DELETE serve the
 * single-connection mode of GraphQL over SSE (reserving a stream, stopping an
 * operation).
 */
export function runsOperation(request: Request, url: URL, endpoint: string): boolean {
  if (url.pathname !== endpoint) return false;
  if (request.method === 'GET') return !(request.headers.get('accept') ?? '').includes('text/html');
  return request.method === 'POST' || request.method === 'PUT' || request.method === 'DELETE';
}
