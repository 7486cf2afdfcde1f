import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../config.ts';
import { errorResponse, runsOperation } from './error-response.ts';

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
 * A POST body of undeclared length (chunked) could outgrow every limit before
 * anyone sees it: refused with 411 before yoga reads it. Browsers and GraphQL
 * clients always declare the length.
 */
export function capBodies(listener: RequestListener): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'POST' && request.headers['content-length'] === undefined) {
      const body = JSON.stringify({
        errors: [
          {
            message: 'A POST must declare its Content-Length.',
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
      });
      response.writeHead(411, {
        'content-type': 'application/json; charset=utf-8',
        connection: 'close',
      });
      response.end(body);
      request.resume();
      return;
    }
    listener(request, response);
  };
}
