import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../config.ts';
import { errorResponse, refuseRaw, runsOperation } from './error-response.ts';

/**
 * Refuses, before anything is parsed: bodies over MAX_REQUEST_BYTES (uploads:
 * MAX_UPLOAD_BYTES) with 413 (bodies of undeclared length are refused by the
 * gateway's Node listener). CSRF has its own plugin (`csrf.ts`).
 */
export function requestLimits(limits: Limits, endpoint: string): Plugin {
  return {
    onRequest(payload) {
      const { request, url } = payload;
      if (!runsOperation(request, url, endpoint)) return;
      if (request.method !== 'POST') return;
      const contentType = (request.headers.get('content-type') ?? '').toLowerCase();
      const isUpload = contentType.startsWith('multipart/form-data');
      const max = isUpload ? limits.maxUploadBytes : limits.maxRequestBytes;
      const length = request.headers.get('content-length');
      if (length !== null && Number(length) > max) {
        const what = isUpload ? 'upload (MAX_UPLOAD_BYTES)' : 'request body (MAX_REQUEST_BYTES)';
        payload.endResponse(
          errorResponse(413, 'BAD_USER_INPUT', `The ${what} is larger than ${max} bytes.`),
        );
      }
    },
  };
}

/**
 * A host name (a fully qualified one may end in a dot), IPv4 or bracketed
 * IPv6 address, with an optional port: all a Host header may be.
 */
const hostPattern =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * Why a request's target or Host cannot be served, or undefined when both
 * are sound. Only an origin-form target (`/path?query`) is served: the
 * gateway is no proxy (absolute-form) and has no server-wide options (`*`).
 * Left to the server adapter, these ended in a 500 with a stack trace.
 */
function malformed(request: IncomingMessage): string | undefined {
  const target = request.url ?? '';
  if (!target.startsWith('/') || target.startsWith('//')) {
    return 'The request target must be a path (origin-form, starting with a single /).';
  }
  const host = request.headers.host;
  if (host !== undefined && !hostPattern.test(host)) {
    return 'The Host header is not a host name or address with an optional port.';
  }
  return undefined;
}

const internalFailure = JSON.stringify({
  errors: [
    {
      message: 'The gateway failed to handle the request.',
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    },
  ],
});

/**
 * The server adapter answers an error thrown outside yoga's handling with a
 * 500 whose text body is the error's stack (file paths included): such an
 * answer goes out as a plain JSON error instead. Every answer of the gateway
 * itself is JSON, an event stream or a page, never text/plain with a 500.
 */
function hideAdapterFailures(response: ServerResponse): void {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  response.writeHead = (status: number, ...rest: unknown[]) => {
    const given = rest.find(
      (arg): arg is Record<string, unknown> => typeof arg === 'object' && arg !== null,
    );
    const declared = given?.['content-type'] ?? response.getHeader('content-type');
    const type = typeof declared === 'string' ? declared : '';
    if (status >= 500 && (type === '' || type.startsWith('text/plain'))) {
      response.setHeader('content-type', 'application/json; charset=utf-8');
      response.setHeader('content-length', Buffer.byteLength(internalFailure));
      const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
      response.write = (() => true) as never;
      response.end = ((...args: unknown[]) => {
        const done = args.find((arg) => typeof arg === 'function');
        return end(internalFailure, done);
      }) as never;
      return writeHead(status, ...rest.filter((arg) => typeof arg === 'string'));
    }
    return writeHead(status, ...rest);
  };
}

/**
 * A malformed request target or Host header is answered 400 before the
 * server adapter sees it; an answer of the adapter's own failure carries no
 * stack trace (hideAdapterFailures).
 *
 * A POST body of undeclared length (chunked) could outgrow every limit before
 * anyone sees it: refused with 411 before yoga reads it. Browsers and GraphQL
 * clients always declare the length.
 */
export function capBodies(listener: RequestListener): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    const problem = malformed(request);
    if (problem !== undefined) {
      refuseRaw(response, 400, 'BAD_USER_INPUT', problem);
      request.resume();
      return;
    }
    if (request.method === 'POST' && request.headers['content-length'] === undefined) {
      refuseRaw(response, 411, 'BAD_USER_INPUT', 'A POST must declare its Content-Length.');
      request.resume();
      return;
    }
    hideAdapterFailures(response);
    listener(request, response);
  };
}
