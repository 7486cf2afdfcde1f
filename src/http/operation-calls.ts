import type { UpstreamService } from '../errors.ts';
import { queryString } from './path.ts';
import type { UpstreamRequest, UpstreamResponse } from './upstream-http.ts';

/**
 * What the upstream calls of one GraphQL request (the operations of a batch
 * together) share: identical reads (GET or HEAD of the same path, query,
 * credential and headers) are made once, and the request is one claimant of
 * each upstream's slots (see ConcurrencyLimiter). A write to an upstream forgets the reads made of it,
 * so that a read after a write (a read-back, the read of a
 * read-modify-write retry) is made again. A failed read is forgotten too.
 */
export class OperationCalls {
  readonly #reads = new Map<UpstreamService, Map<string, Promise<UpstreamResponse>>>();

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
    const sent = send();
    reads.set(key, sent);
    sent.catch(() => {
      if (this.#reads.get(service)?.get(key) === sent) this.#reads.get(service)?.delete(key);
    });
    return sent;
  }

  /** Forgets every read: the next event of a subscription reads afresh. */
  forget(): void {
    this.#reads.clear();
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
