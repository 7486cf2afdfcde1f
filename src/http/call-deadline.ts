import { abortReason } from './concurrency-limiter.ts';

/**
 * One call's deadline and its client's abort as a single signal, with one
 * timer and one listener that are released when the call ends (a per-call
 * `AbortSignal.timeout` + `AbortSignal.any` keeps both alive for the whole
 * timeout, long after a fast call is done).
 */
export class CallDeadline {
  readonly signal: AbortSignal;
  /** Epoch milliseconds when the deadline passes. */
  readonly at: number;
  readonly #client: AbortSignal;
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  #timedOut = false;

  constructor(client: AbortSignal, timeoutMs: number) {
    this.signal = this.#controller.signal;
    this.at = Date.now() + timeoutMs;
    this.#client = client;
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort(new Error('The upstream call ran out of time.'));
    }, timeoutMs);
    if (client.aborted) this.#onClientAbort();
    else client.addEventListener('abort', this.#onClientAbort, { once: true });
  }

  get timedOut(): boolean {
    return this.#timedOut;
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#client.removeEventListener('abort', this.#onClientAbort);
  }

  readonly #onClientAbort = (): void => {
    this.#controller.abort(abortReason(this.#client));
  };
}
