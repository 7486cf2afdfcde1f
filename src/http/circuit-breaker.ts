export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one probe call is let through. */
  resetMs: number;
  now?: () => number;
}

/**
 * Consecutive-failure circuit breaker. While open, calls are shed at once;
 * after `resetMs` one call is let through as a probe (half-open): its success
 * closes the circuit, its failure opens it again.
 */
export class CircuitBreaker {
  readonly #options: CircuitBreakerOptions;
  readonly #now: () => number;
  #failures = 0;
  #openedAt: number | undefined;
  #probing = false;

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.#openedAt === undefined) return 'closed';
    return this.#now() - this.#openedAt >= this.#options.resetMs ? 'half-open' : 'open';
  }

  /** True when a call may go out now; a half-open circuit lets exactly one probe through. */
  tryAcquire(): boolean {
    switch (this.state) {
      case 'closed':
        return true;
      case 'open':
        return false;
      case 'half-open':
        if (this.#probing) return false;
        this.#probing = true;
        return true;
    }
  }

  onSuccess(): void {
    this.#failures = 0;
    this.#openedAt = undefined;
    this.#probing = false;
  }

  onFailure(): void {
    this.#probing = false;
    this.#failures += 1;
    if (this.#openedAt !== undefined || this.#failures >= this.#options.failureThreshold) {
      this.#openedAt = this.#now();
    }
  }

  /** A call that ended without telling anything about the upstream (e.g. the client left). */
  onAbandon(): void {
    this.#probing = false;
  }
}
