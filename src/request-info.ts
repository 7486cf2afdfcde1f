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
  /**
   * Who sent the request: the socket's peer, or what a trusted proxy forwarded
   * (TRUSTED_PROXIES); null where there is no socket (in-process requests).
   * The one value the sign-in limits, audit events and the request log read.
   */
  clientAddress: string | null;
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
      clientAddress: null,
    };
    infos.set(request, info);
  }
  return info;
}

/**
 * A request the gateway makes from a client's (an operation of an SSE single
 * connection) comes from that client's address.
 */
export function carryClientAddress(from: Request, to: Request): void {
  requestInfo(to).clientAddress = requestInfo(from).clientAddress;
}
