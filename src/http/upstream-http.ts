import type { Readable } from 'node:stream';
import { Pool, type Dispatcher, type FormData } from 'undici';
import {
  UpstreamBadResponseError,
  UpstreamStatusError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  type UpstreamService,
} from '../errors.ts';
import { queryString, type QueryValue } from './path.ts';

/** What every upstream call carries from the GraphQL request that needs it. */
/** Multipart bodies for upstream calls (undici's, so that a large part is streamed, not buffered). */
export { FormData } from 'undici';

export interface CallContext {
  /** Aborted when the client goes away: the upstream request is aborted with it. */
  readonly signal: AbortSignal;
  /** Sent to the upstream as `X-Request-Id`. */
  readonly requestId: string;
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

export interface UpstreamRequest {
  method: HttpMethod;
  /** Path below the upstream's API root, built with `path`; starts with `/`. */
  path: string;
  /** The path's template (`/workflows/{id}`), for logs and metrics. */
  route: string;
  query?: Readonly<Record<string, QueryValue>>;
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array | FormData | Readable;
  /** `Authorization` header value. */
  authorization?: string;
}

export interface UpstreamResponse {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
}

/** Takes the upstream's own error code and message out of an error body, or nulls. */
export type ErrorBodyReader = (
  body: string,
  contentType: string | undefined,
) => { code: string | null; message: string | null };

export interface UpstreamHttpOptions {
  service: UpstreamService;
  /** API root, e.g. `https://vro.example:8281/vco/api`. */
  baseUrl: URL;
  timeoutMs: number;
  readErrorBody: ErrorBodyReader;
  /** Keep-alive connections per upstream. */
  connections?: number;
  /** Largest response body accepted. */
  maxResponseBytes?: number;
  tls?: { ca?: string | Buffer; rejectUnauthorized: boolean };
}

/** The request was abandoned because the GraphQL client went away; nobody sees this error. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client went away; the upstream request was aborted.');
    this.name = 'ClientGoneError';
  }
}

/**
 * The one road to an upstream: a keep-alive pool, one deadline per call that
 * covers connect, headers and body, abort on client disconnect, and every
 * failure mapped to an UpstreamError with a contract code. Nothing it throws
 * names the upstream's address or carries a credential.
 */
export class UpstreamHttp {
  readonly service: UpstreamService;
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #options: UpstreamHttpOptions;

  constructor(options: UpstreamHttpOptions) {
    this.service = options.service;
    this.#options = options;
    this.#basePath = options.baseUrl.pathname.replace(/\/+$/, '');
    this.#pool = new Pool(options.baseUrl.origin, {
      connections: options.connections ?? 32,
      keepAliveTimeout: 30_000,
      headersTimeout: 0,
      bodyTimeout: 0,
      ...(options.tls === undefined ? {} : { connect: options.tls }),
    });
  }

  /** Sends one request; resolves for 2xx, throws an UpstreamError otherwise. */
  async request(call: CallContext, request: UpstreamRequest): Promise<UpstreamResponse> {
    const { service, timeoutMs } = this.#options;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([call.signal, deadline]);
    let response: UpstreamResponse;
    try {
      response = await this.#send(call, request, signal);
    } catch (error) {
      if (call.signal.aborted) throw new ClientGoneError();
      if (deadline.aborted) throw new UpstreamTimeoutError(service, timeoutMs);
      if (error instanceof UpstreamBadResponseError) throw error;
      throw new UpstreamUnavailableError(service, describeNetworkError(error));
    }
    if (response.status >= 200 && response.status < 300) return response;
    const said = this.#options.readErrorBody(response.body, response.headers['content-type']);
    throw new UpstreamStatusError(service, response.status, said.code, said.message);
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  async #send(
    call: CallContext,
    request: UpstreamRequest,
    signal: AbortSignal,
  ): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { 'x-request-id': call.requestId, ...request.headers };
    if (request.authorization !== undefined) headers['authorization'] = request.authorization;
    const options: Dispatcher.RequestOptions = {
      method: request.method,
      path: this.#basePath + request.path + queryString(request.query),
      headers,
      signal,
    };
    if (request.body !== undefined) options.body = request.body;
    const answer = await this.#pool.request(options);
    const body = await this.#readBody(answer.body, answer.statusCode);
    return { status: answer.statusCode, headers: flattenHeaders(answer.headers), body };
  }

  async #readBody(body: Dispatcher.ResponseData['body'], status: number): Promise<string> {
    const limit = this.#options.maxResponseBytes ?? 32 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > limit) {
        body.destroy();
        throw new UpstreamBadResponseError(
          this.service,
          `a body larger than ${limit} bytes`,
          status,
        );
      }
      chunks.push(buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

function flattenHeaders(
  raw: Dispatcher.ResponseData['headers'],
): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** A short reason from a network error's code; never its message, which names the address. */
function describeNetworkError(error: unknown): string {
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unknown';
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    UND_ERR_SOCKET: 'connection closed mid-answer',
    UND_ERR_CLOSED: 'connection closed',
    ENOTFOUND: 'host not found',
    EHOSTUNREACH: 'host unreachable',
    UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
    HPE_INVALID_CONSTANT: 'malformed HTTP answer',
  };
  return `${reasons[code] ?? 'request failed'} (${code})`;
}
