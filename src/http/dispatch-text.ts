import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { abortReason } from './concurrency-limiter.ts';

export interface TextAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body, decoded as UTF-8. */
  body: string;
}

/** The answer's body grew past the limit; the request was aborted. */
export class BodyTooLargeError extends Error {
  readonly limit: number;
  readonly status: number;
  constructor(limit: number, status: number) {
    super(`a body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
    this.limit = limit;
    this.status = status;
  }
}

/**
 * Sends one request and collects its whole body as text. Rejects with the
 * signal's reason when it aborts (the request is aborted too, even while it
 * still waits in the pool), with BodyTooLargeError past `maxBytes`, and with
 * undici's own error for anything on the wire. Unlike `Dispatcher.request`, no
 * stream or async iterator is made per call: the gateway's hot path.
 */
export function dispatchForText(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal,
  maxBytes: number,
): Promise<TextAnswer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    dispatcher.dispatch(options, new TextHandler(signal, maxBytes, resolve, reject));
  });
}

class TextHandler implements Dispatcher.DispatchHandler {
  readonly #signal: AbortSignal;
  readonly #maxBytes: number;
  readonly #resolve: (answer: TextAnswer) => void;
  readonly #reject: (error: Error) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];
  #size = 0;
  #failure: Error | undefined;
  #settled = false;

  constructor(
    signal: AbortSignal,
    maxBytes: number,
    resolve: (answer: TextAnswer) => void,
    reject: (error: Error) => void,
  ) {
    this.#signal = signal;
    this.#maxBytes = maxBytes;
    this.#resolve = resolve;
    this.#reject = reject;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#failure !== undefined) controller.abort(this.#failure);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
  ): void {
    this.#status = status;
    this.#headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > this.#maxBytes) {
      const error = new BodyTooLargeError(this.#maxBytes, this.#status);
      this.#fail(error);
      controller.abort(error);
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.#settle()) return;
    const body =
      this.#chunks.length === 1
        ? (this.#chunks[0] as Buffer).toString('utf8')
        : Buffer.concat(this.#chunks).toString('utf8');
    this.#resolve({ status: this.#status, headers: this.#headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  readonly #onAbort = (): void => {
    const reason = abortReason(this.#signal);
    this.#fail(reason);
    this.#controller?.abort(reason);
  };

  #fail(error: Error): void {
    this.#failure ??= error;
    if (this.#settle()) this.#reject(error);
  }

  /** True the first time: the promise is settled once, and the abort listener removed. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#signal.removeEventListener('abort', this.#onAbort);
    return true;
  }
}
