import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { BodyCharsetError, decodeBody, utf8Body } from './body-charset.ts';
import { abortReason } from './concurrency-limiter.ts';
import { releaseBuffer } from './release-buffer.ts';

interface TextAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body, decoded in the character set it declares (body-charset.ts); empty when `bytes` holds it. */
  body: string;
  /** A success answer's body as UTF-8 bytes, when they were asked for instead of its text. */
  bytes?: Buffer;
}

/** The answer came, but its body cannot be used: too large, or not text in its declared charset. */
export class UnreadableBodyError extends Error {
  readonly status: number;
  constructor(reason: string, status: number) {
    super(reason);
    this.name = 'UnreadableBodyError';
    this.status = status;
  }
}

/** The answer's body grew past the limit; the request was aborted. */
export class BodyTooLargeError extends UnreadableBodyError {
  readonly limit: number;
  constructor(limit: number, status: number) {
    super(`a body larger than ${limit} bytes`, status);
    this.name = 'BodyTooLargeError';
    this.limit = limit;
  }
}

/**
 * Sends one request and collects its whole body as text. Rejects with the
 * signal's reason when it aborts (the request is aborted too, even while it
 * still waits in the pool), with BodyTooLargeError past `maxBytes`, with
 * UnreadableBodyError for a success body that is not text in its charset, and with
 * undici's own error for anything on the wire. Unlike `Dispatcher.request`, no
 * stream or async iterator is made per call: the gateway's hot path.
 * `asBytes`: a success answer's body is kept as UTF-8 bytes, not made text
 * (a large XML answer is parsed from its bytes: xml.ts).
 */
export function dispatchForText(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal,
  maxBytes: number,
  asBytes = false,
): Promise<TextAnswer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    dispatcher.dispatch(options, new TextHandler(signal, maxBytes, asBytes, resolve, reject));
  });
}

class TextHandler implements Dispatcher.DispatchHandler {
  readonly #signal: AbortSignal;
  readonly #maxBytes: number;
  readonly #asBytes: boolean;
  readonly #resolve: (answer: TextAnswer) => void;
  readonly #reject: (error: Error) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];
  #size = 0;
  /**
   * Bytes asked for, of a declared length: the body, copied in as it comes.
   * The chunks then live no longer than their copy, instead of the whole
   * download (a collection meanwhile would keep them until a full one).
   */
  #into: Buffer | undefined;
  #failure: Error | undefined;
  #settled = false;

  constructor(
    signal: AbortSignal,
    maxBytes: number,
    asBytes: boolean,
    resolve: (answer: TextAnswer) => void,
    reject: (error: Error) => void,
  ) {
    this.#signal = signal;
    this.#maxBytes = maxBytes;
    this.#asBytes = asBytes;
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
    if (this.#asBytes && status >= 200 && status < 300) {
      const length = Number(headers['content-length']);
      if (Number.isSafeInteger(length) && length > 0 && length <= this.#maxBytes) {
        this.#into = Buffer.allocUnsafeSlow(length);
      }
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > this.#maxBytes) {
      const error = new BodyTooLargeError(this.#maxBytes, this.#status);
      this.#fail(error);
      controller.abort(error);
      return;
    }
    const into = this.#into;
    if (into === undefined) {
      this.#chunks.push(chunk);
    } else if (this.#size <= into.length) {
      chunk.copy(into, this.#size - chunk.length);
    } else {
      // more than declared: gathered as chunks from here
      this.#into = undefined;
      this.#chunks.push(into.subarray(0, this.#size - chunk.length), chunk);
    }
  }

  onResponseEnd(): void {
    if (!this.#settle()) return;
    const into = this.#into;
    const joined = into !== undefined || this.#chunks.length > 1;
    let bytes: Buffer;
    if (into !== undefined)
      bytes = this.#size === into.length ? into : into.subarray(0, this.#size);
    else if (joined) bytes = Buffer.concat(this.#chunks);
    else bytes = this.#chunks[0] ?? Buffer.alloc(0);
    this.#chunks.length = 0;
    this.#into = undefined;
    const status = this.#status;
    const success = status >= 200 && status < 300;
    let body: string;
    try {
      if (this.#asBytes && success) {
        const utf8 = utf8Body(bytes, this.#headers['content-type']);
        // re-encoded from another charset: the bytes as they came are not needed any more
        if (joined && utf8.buffer !== bytes.buffer) releaseBuffer(bytes);
        this.#resolve({ status, headers: this.#headers, body: '', bytes: utf8 });
        return;
      }
      // Only a success answer's content is used: an error answer's stays readable, its status decides.
      body = decodeBody(bytes, this.#headers['content-type'], success);
    } catch (error) {
      if (joined) releaseBuffer(bytes);
      this.#reject(
        error instanceof BodyCharsetError
          ? new UnreadableBodyError(error.message, status)
          : asError(error),
      );
      return;
    }
    // the text is a copy: the joined bytes are not needed any more
    if (joined) releaseBuffer(bytes);
    this.#resolve({ status, headers: this.#headers, body });
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

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
