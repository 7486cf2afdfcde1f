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

/** True for a request that would run a GraphQL operation (not the GraphiQL page). */
export function runsOperation(request: Request, url: URL, endpoint: string): boolean {
  if (url.pathname !== endpoint) return false;
  if (request.method === 'GET') {
    const accept = request.headers.get('accept') ?? '';
    const wantsPage = accept.includes('text/html') && !url.searchParams.has('query');
    return !wantsPage && (url.searchParams.has('query') || url.searchParams.has('extensions'));
  }
  return request.method === 'POST';
}
