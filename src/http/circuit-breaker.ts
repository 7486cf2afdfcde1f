export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one probe call is let through. */
  resetMs: number;
}

/** A call the breaker let through; it reports how the call ended, once. */
export interface CircuitPass {
  succeeded(): void;
  failed(): void;
  /** The call ended without telling anything about the upstream (e.g. the client left). */
  abandoned(): void;
}

/**
 * Consecutive-failure circuit breaker. While open, calls are shed at once;
 * after `resetMs` one call is let through as a probe (half-open): its success
 * closes the circuit, its failure opens it again. Only the probe's own end
 * frees the probe slot: a call let through before the circuit opened that
 * ends meanwhile never lets a second probe out.
 */
export class CircuitBreaker {
  readonly #options: CircuitBreakerOptions;
  #failures = 0;
  #openedAt: number | undefined;
  #probing = false;

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
  }

  get state(): CircuitState {
    if (this.#openedAt === undefined) return 'closed';
    return Date.now() - this.#openedAt >= this.#options.resetMs ? 'half-open' : 'open';
  }

  /** How long until an open circuit lets a probe through; undefined while calls go out. */
  get retryInMs(): number | undefined {
    if (this.#openedAt === undefined) return undefined;
    return Math.max(0, this.#openedAt + this.#options.resetMs - Date.now());
  }

  /** A pass when a call may go out now (a half-open circuit lets exactly one probe through). */
  tryAcquire(): CircuitPass | undefined {
    switch (this.state) {
      case 'closed':
        return this.#pass(false);
      case 'open':
        return undefined;
      case 'half-open':
        if (this.#probing) return undefined;
        this.#probing = true;
        return this.#pass(true);
    }
  }

  #pass(probe: boolean): CircuitPass {
    let ended = false;
    const end = (outcome: () => void) => () => {
      if (ended) return;
      ended = true;
      if (probe) this.#probing = false;
      outcome();
    };
    return {
      succeeded: end(() => {
        this.#failures = 0;
        this.#openedAt = undefined;
      }),
      failed: end(() => {
        this.#failures += 1;
        if (this.#openedAt !== undefined || this.#failures >= this.#options.failureThreshold) {
          this.#openedAt = Date.now();
        }
      }),
      abandoned: end(() => undefined),
    };
  }
}
