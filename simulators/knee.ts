import type { ServerResponse } from 'node:http';

/** What one simulator saw of its load since the last reset. */
export interface LoadReport {
  /** Requests that arrived. */
  calls: number;
  /** Requests in flight now. */
  inFlight: number;
  /** Most requests in flight at once. */
  peakInFlight: number;
  /** Requests in flight on average over the time since the reset (time-weighted). */
  meanInFlight: number;
  /** Requests in flight as each one arrived (itself included). */
  inFlightAtArrival: Percentiles;
  /** From a request's arrival to the end of its answer, ms. */
  latencyMs: Percentiles;
}

interface Percentiles {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * An appliance with a capacity: every request is answered after `baseMs` while
 * at most `knee` requests are in flight (itself included, counted as it
 * arrives), and after `baseMs × inFlight / knee` beyond it, so that the
 * throughput stays at `knee / baseMs` however many requests wait (without a
 * knee, always `baseMs`). It also keeps what the load looked like.
 */
export class KneeLoad {
  readonly #baseMs: number;
  readonly #knee: number;
  #inFlight = 0;
  #peak = 0;
  #calls = 0;
  #since = performance.now();
  #lastChange = this.#since;
  #area = 0;
  #atArrival = new Map<number, number>();
  #latencies = new Map<number, number>();

  constructor(baseMs: number, knee = Number.POSITIVE_INFINITY) {
    this.#baseMs = baseMs;
    this.#knee = knee;
  }

  /** The delay of a request arriving now; it counts as in flight until its answer is done. */
  delayFor(response: ServerResponse): number {
    if (response.destroyed) return this.#baseMs;
    const arrived = performance.now();
    this.#move(arrived, 1);
    this.#calls += 1;
    this.#peak = Math.max(this.#peak, this.#inFlight);
    bump(this.#atArrival, this.#inFlight);
    const delay = this.#baseMs * Math.max(1, this.#inFlight / this.#knee);
    response.once('close', () => {
      const now = performance.now();
      this.#move(now, -1);
      bump(this.#latencies, Math.round(now - arrived));
    });
    return delay;
  }

  report(): LoadReport {
    const now = performance.now();
    this.#move(now, 0);
    const seconds = now - this.#since;
    return {
      calls: this.#calls,
      inFlight: this.#inFlight,
      peakInFlight: this.#peak,
      meanInFlight: seconds > 0 ? this.#area / seconds : 0,
      inFlightAtArrival: percentiles(this.#atArrival),
      latencyMs: percentiles(this.#latencies),
    };
  }

  reset(): void {
    this.#since = performance.now();
    this.#lastChange = this.#since;
    this.#area = 0;
    this.#calls = 0;
    this.#peak = this.#inFlight;
    this.#atArrival = new Map();
    this.#latencies = new Map();
  }

  #move(now: number, by: number): void {
    this.#area += this.#inFlight * (now - this.#lastChange);
    this.#lastChange = now;
    this.#inFlight += by;
  }
}

function bump(histogram: Map<number, number>, value: number): void {
  histogram.set(value, (histogram.get(value) ?? 0) + 1);
}

function percentiles(histogram: Map<number, number>): Percentiles {
  const values = [...histogram.keys()].sort((a, b) => a - b);
  let count = 0;
  let sum = 0;
  for (const value of values) {
    const n = histogram.get(value) ?? 0;
    count += n;
    sum += value * n;
  }
  const at = (share: number): number => {
    let seen = 0;
    for (const value of values) {
      seen += histogram.get(value) ?? 0;
      if (seen >= share * count) return value;
    }
    return 0;
  };
  return {
    mean: count > 0 ? sum / count : 0,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: values.at(-1) ?? 0,
  };
}
