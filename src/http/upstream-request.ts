/** One call to an upstream and its answer, as the seam (upstream-http.ts) takes and gives them. */
import type { Readable } from 'node:stream';
import type { QueryValue } from './path.ts';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

export interface UpstreamRequest {
  method: HttpMethod;
  /** Path below the upstream's API root, built with `path`; starts with `/`. */
  path: string;
  /** The path's template (`/workflows/{id}`), for logs and metrics. */
  route: string;
  query?: Readonly<Record<string, QueryValue>>;
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array | Readable;
  /** `Authorization` header value. */
  authorization?: string;
  /** Values sent in the body that an error must never repeat (e.g. a password). */
  secrets?: readonly string[];
  /** `bytes`: a success answer's body comes as UTF-8 bytes (`UpstreamResponse.bytes`), not as text. */
  answerAs?: 'text' | 'bytes';
  /** A read made afresh and not shared with the GraphQL request's identical reads: its caller alone holds the answer. */
  exclusive?: boolean;
  /** Largest body accepted for this call, when below the seam's `maxResponseBytes` (a page of a paged read). */
  maxBytes?: number;
}

export interface UpstreamResponse {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string | undefined>>;
  /** Empty when `bytes` holds the body. */
  body: string;
  /** A success answer's body as UTF-8 bytes, when the request asked for them (`answerAs`). */
  bytes?: Buffer;
}
