import { randomUUID } from 'node:crypto';

/** What the gateway learns about one HTTP request while serving it (for logs and metrics). */
export interface RequestInfo {
  readonly requestId: string;
  readonly startedAt: number;
  operationName: string | undefined;
  operationType: string | undefined;
  /** Upstream call attempts made for this request. */
  upstreamCalls: number;
  errorCodes: string[];
}

const infos = new WeakMap<Request, RequestInfo>();
const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's info, created on first use; the id is the client's `X-Request-Id` when it is sane. */
export function requestInfo(request: Request): RequestInfo {
  let info = infos.get(request);
  if (info === undefined) {
    const offered = request.headers.get('x-request-id');
    info = {
      requestId: offered !== null && requestIdPattern.test(offered) ? offered : randomUUID(),
      startedAt: performance.now(),
      operationName: undefined,
      operationType: undefined,
      upstreamCalls: 0,
      errorCodes: [],
    };
    infos.set(request, info);
  }
  return info;
}
