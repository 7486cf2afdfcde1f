import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../config.ts';
import { errorResponse, runsOperation } from './error-response.ts';

/** Headers that a browser cannot send cross-site without a CORS preflight. */
const csrfHeaders = ['x-graphql-csrf', 'x-graphql-yoga-csrf', 'apollo-require-preflight'];
const simpleContentTypes = [
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'text/plain',
];

/**
 * Refuses, before anything is parsed: bodies over MAX_REQUEST_BYTES (uploads:
 * MAX_UPLOAD_BYTES) with 413 (bodies of undeclared length are refused by the
 * gateway's Node listener), and
 * requests a foreign page could make a browser send with the user's cookies
 * or network position (GET operations, multipart and other "simple" POSTs)
 * unless they carry one of the CSRF headers.
 */
export function requestLimits(limits: Limits, endpoint: string): Plugin {
  return {
    onRequest(payload) {
      const { request, url } = payload;
      if (!runsOperation(request, url, endpoint)) return;
      const contentType = (request.headers.get('content-type') ?? '').toLowerCase();
      const simple =
        request.method === 'GET' || simpleContentTypes.some((t) => contentType.startsWith(t));
      if (simple && !csrfHeaders.some((h) => (request.headers.get(h) ?? '') !== '')) {
        payload.endResponse(
          errorResponse(
            400,
            'BAD_USER_INPUT',
            'GET operations and multipart or form requests must carry the header `x-graphql-csrf: 1` (CSRF prevention).',
          ),
        );
        return;
      }
      if (request.method !== 'POST') return;
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
