import { UpstreamCallLimitError, type UpstreamService } from '../errors.ts';
import { queryString } from './path.ts';
import type { UpstreamRequest, UpstreamResponse } from './upstream-request.ts';

/**
 * What the upstream calls of one GraphQL request (the operations of a batch
 * together) share: identical reads (GET or HEAD of the same path, query,
 * credential and headers) are made once, and the request is one claimant of
 * each upstream's slots (see ConcurrencyLimiter). A write to an upstream forgets the reads made of it,
 * so that a read after a write (a read-back, the read of a
 * read-modify-write retry) is made again. A failed read is forgotten too.
 * At most `limit` calls are made (MAX_UPSTREAM_CALLS_PER_OPERATION, as the
 * estimate allowed them): one more is refused before it is sent (a read
 * answered by an identical one costs nothing; a call's retries are one call).
 */
export class OperationCalls {
  readonly #reads = new Map<UpstreamService, Map<string, Promise<UpstreamResponse>>>();
  readonly #limit: number;
  #made = 0;
  #refusal: UpstreamCallLimitError | undefined;

  constructor(limit = Infinity) {
    this.#limit = limit;
  }

  /** Counts one call about to be made; throws UpstreamCallLimitError, counting nothing, past the limit. */
  claim(): void {
    if (this.#made < this.#limit) {
      this.#made += 1;
      return;
    }
    // one error for every refused call: thousands of fields may need one
    this.#refusal ??= new UpstreamCallLimitError(this.#limit);
    throw this.#refusal;
  }

  /**
   * Sends the request through `send`, or answers an identical read made
   * before. `search`: the request's query string, when the caller has it.
   */
  async send(
    service: UpstreamService,
    request: UpstreamRequest,
    send: () => Promise<UpstreamResponse>,
    search: string = queryString(request.query),
  ): Promise<UpstreamResponse> {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      this.claim();
      this.#reads.delete(service);
      try {
        return await send();
      } finally {
        this.#reads.delete(service);
      }
    }
    let reads = this.#reads.get(service);
    if (reads === undefined) {
      reads = new Map();
      this.#reads.set(service, reads);
    }
    const key = readKey(request, search);
    const made = reads.get(key);
    if (made !== undefined) return made;
    this.claim();
    const sent = send();
    reads.set(key, sent);
    sent.catch(() => {
      if (this.#reads.get(service)?.get(key) === sent) this.#reads.get(service)?.delete(key);
    });
    return sent;
  }

  /** Forgets every read and every call counted: the next event of a subscription reads afresh. */
  forget(): void {
    this.#reads.clear();
    this.#made = 0;
  }
}

function readKey(request: UpstreamRequest, search: string): string {
  return JSON.stringify([
    request.method,
    request.path,
    search,
    request.authorization ?? null,
    headersKey(request.headers),
    request.answerAs ?? 'text',
  ]);
}

/** The headers' names and values in name order, per headers object: a client sends the same few objects. */
const headersKeys = new WeakMap<object, string>();

function headersKey(headers: Readonly<Record<string, string>> | undefined): string {
  if (headers === undefined) return '[]';
  let key = headersKeys.get(headers);
  if (key === undefined) {
    key = JSON.stringify(Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1)));
    if (Object.isFrozen(headers)) headersKeys.set(headers, key);
  }
  return key;
}
