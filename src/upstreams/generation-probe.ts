import { sharedCall } from '../cache/shared-read.ts';
import type { CallContext } from '../http/upstream-http.ts';

/**
 * Which generation of its API an appliance speaks (vRA 7 or 8, NSX-v or
 * NSX-T): the configured one when set, else asked of the appliance once and
 * remembered. A failed question is not remembered: the next call asks again.
 * The question serves every call waiting for it: it is not aborted with the
 * call that happened to ask it, nor written down in that call's audit trail.
 */
export class GenerationProbe<G extends string> {
  readonly #ask: (call: CallContext) => Promise<G>;
  #known: G | undefined;
  #pending: Promise<G> | undefined;

  constructor(configured: G | undefined, ask: (call: CallContext) => Promise<G>) {
    this.#known = configured;
    this.#ask = ask;
  }

  /** The generation, once known; undefined before the first answer. */
  get known(): G | undefined {
    return this.#known;
  }

  /** The generation, asking the appliance at most once at a time. */
  get(call: CallContext): Promise<G> {
    if (this.#known !== undefined) return Promise.resolve(this.#known);
    this.#pending ??= this.#ask(sharedCall(call)).then(
      (generation) => {
        this.#known = generation;
        this.#pending = undefined;
        return generation;
      },
      (error: unknown) => {
        this.#pending = undefined;
        throw error;
      },
    );
    return this.#pending;
  }
}
