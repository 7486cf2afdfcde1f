/** One finished upstream call, as the adaptive limit learns from it. */
export interface LimitSample {
  /** What the call asked for (method and route template): each has a latency of its own. */
  key: string;
  /** From handing the request to the connection pool to the end of the answer. */
  rttMs: number;
  /** Calls running at this upstream when it started, itself included. */
  inFlight: number;
  /** Calls running at this upstream when it ended, itself included (default: as when it started). */
  inFlightAtEnd?: number;
  /** The appliance said it is overloaded (429, 503) or did not answer in time. */
  overloaded?: boolean;
}

export interface AdaptiveLimitOptions {
  /** The limit before anything is learnt. */
  initial: number;
  min: number;
  /** The ceiling (UPSTREAM_MAX_CONCURRENCY). */
  max: number;
  /** How much slower than at rest the appliance may answer before the limit shrinks. */
  tolerance?: number;
  /** Shortest time between two changes of the limit. */
  windowMs?: number;
  /** Fewest calls a decision is based on. */
  minSamples?: number;
  /**
   * How long the latency at rest learnt by a probe holds while the limit is
   * in use; then the next probe. Infinity: never a probe (calls at rest are
   * only those that happen to be quiet).
   */
  probeIntervalMs?: number;
  now?: () => number;
  /**
   * The gateway's own delay in answering (its event loop's, ms) since the
   * previous call: taken off every latency, so that a busy gateway does not
   * mistake its own slowness for the appliance's.
   */
  ownDelayMs?: () => number;
  /**
   * The share of a core the gateway used since the previous call (its CPU
   * time over that time): at `busyShare` or more, the gateway is what makes
   * its calls slow, not the appliance.
   */
  ownCpu?: () => number;
}

/** A call of the current window: its latency and what its route takes at rest. */
interface Timed {
  rttMs: number;
  restMs: number;
}

/** Quiet calls kept per key; the latency at rest is read from them once there are `quietNeeded`. */
const quietKept = 16;
const quietNeeded = 8;
/**
 * Calls a probe waits for: three quarters of those kept, so that the lower
 * quartile is one of the probe's whatever the others were.
 */
const probeCalls = 12;
/** A probe that has not seen its calls by then ends anyway (the traffic stopped, or the calls fail). */
const probeMaxMs = 2_000;
/**
 * A gateway that used this much of a core in a window reads its answers late
 * by more than its loop's delay shows (the answers of one turn wait for each
 * other): against a flat 50 ms appliance at 100 clients, the gateway at 0.8
 * ms of CPU per call, windows of an event loop busy 80-100% of the time
 * looked 1.3-1.7 times slower than at rest, those busy 70-80% up to 1.5
 * times. At an appliance's knee (400 calls/s) the gateway uses about half a
 * core. CPU time rather than the loop's busy time: on a shared host a
 * gateway whose core is taken away looks busy, at the knee too.
 */
const busyShare = 0.7;

/**
 * A key's latency at rest: the lower quartile of its last calls made with few
 * others in flight (a few of them slowed by a new connection, a cold start or
 * a stalled gateway do not count); until there are enough of them, the
 * fastest call so far. Every error in measuring a call makes it slower, never
 * faster, so that the lower quartile is one of the undisturbed calls.
 */
class Baseline {
  readonly #quiet: number[] = [];
  #quartile = Number.POSITIVE_INFINITY;
  /** Until a quiet call is seen: the fastest call so far. */
  #fastest = Number.POSITIVE_INFINITY;

  get ms(): number {
    return this.#quiet.length >= quietNeeded ? this.#quartile : this.#fastest;
  }

  learn(rttMs: number, quiet: boolean): void {
    this.#fastest = Math.min(this.#fastest, rttMs);
    if (!quiet) return;
    this.#quiet.push(rttMs);
    if (this.#quiet.length > quietKept) this.#quiet.shift();
    const sorted = [...this.#quiet].sort((a, b) => a - b);
    this.#quartile = sorted[Math.floor((sorted.length - 1) / 4)] ?? rttMs;
  }
}

/**
 * A limit of calls in flight to one appliance that follows its latency, in
 * the manner of the gradient limits of Netflix's concurrency-limits and
 * Envoy's adaptive concurrency filter. Each call's latency, less the
 * gateway's own delay in reading answers (`ownDelayMs`), is compared with what
 * the same request (method and route) takes at rest, learnt from calls made
 * while at most `min` calls were in flight, when they started and when they
 * ended: a mix of fast and slow routes is
 * not mistaken for overload, and a long spell at the limit never becomes the
 * new "at rest".
 *
 * At most once per window (`windowMs`, and at least `minSamples` calls
 * started since the last change), the median of those ratios decides:
 * - above `tolerance` in two windows in a row (one may be a stall of the
 *   gateway or the network): the appliance queues. The limit becomes the calls that
 *   were in flight times tolerance / ratio (at most 30% less at once): where
 *   latency grows in proportion to the calls beyond the appliance's capacity,
 *   this lands on the number of calls that keeps it within the tolerance.
 * - within it, while the limit was in use (calls in flight reached 80% of it):
 *   the limit grows by 1, 2, 3, … per window since the last shrink, at most by
 *   its square root: a fresh limit climbs fast, one that has just found the
 *   appliance's knee probes above it gently.
 * - an overloaded answer (429, 503, a timeout) shrinks it by at least 10%.
 * - in a window where the gateway used 70% of a core or more (`ownCpu`),
 *   slow calls are not the appliance's: such a window
 *   never shrinks the limit and ends a row of slow ones (it grows the limit
 *   when its calls were fast as measured, its own delay not taken off). A gateway bound by its own CPU reads every answer
 *   late, and a smaller limit would only queue the calls inside it: against
 *   a flat appliance at 100 clients the limit fell to half of them and
 *   capped throughput at half the ideal. Nor does such a window grow a limit
 *   its calls find slow: against an appliance at its knee, a gateway busy
 *   for a moment (a core taken away) would push it beyond.
 * The limit stays within [min, max].
 *
 * Under steady load the only calls started quiet are those at the start of a
 * burst, when the gateway itself is busiest and reads their answers late:
 * learnt from them, the latency at rest came out 10-40% slow, and the limit
 * settled that much above the appliance's knee. They do not count (they end
 * with many in flight), and so under steady load no call is quiet: as Envoy's adaptive concurrency
 * filter does, the limit probes: the first time it is in use, and every
 * `probeIntervalMs` while it stays in use, it holds itself at `min` until 12
 * calls started at the floor have finished (about three latencies at rest),
 * then goes back to where it was.
 */
export class AdaptiveLimit {
  readonly #min: number;
  readonly #max: number;
  readonly #tolerance: number;
  readonly #windowMs: number;
  readonly #minSamples: number;
  readonly #now: () => number;
  readonly #ownDelayMs: () => number;
  readonly #ownCpu: () => number;
  readonly #baselines = new Map<string, Baseline>();
  #limit: number;
  /** Windows in a row the limit grew; the next growth step. */
  #streak = 0;
  #windowStart: number;
  #calls: Timed[] = [];
  /** Calls of the current window, those of a route without a latency at rest included. */
  #started = 0;
  #peakInFlight = 0;
  #overloaded = false;
  #slowBefore = false;
  readonly #probeIntervalMs: number;
  /** While a probe runs: when it began, the calls it still waits for, and the limit to go back to. */
  #probe: { startedAt: number; left: number; resume: number } | undefined;
  /** When the last probe ended. */
  #probedAt: number | undefined;

  constructor(options: AdaptiveLimitOptions) {
    this.#min = options.min;
    this.#max = options.max;
    this.#limit = clamp(options.initial, options.min, options.max);
    this.#tolerance = options.tolerance ?? 1.2;
    this.#windowMs = options.windowMs ?? 100;
    this.#minSamples = options.minSamples ?? 20;
    this.#now = options.now ?? (() => performance.now());
    this.#ownDelayMs = options.ownDelayMs ?? (() => 0);
    this.#ownCpu = options.ownCpu ?? (() => 0);
    this.#probeIntervalMs = options.probeIntervalMs ?? 60_000;
    this.#windowStart = this.#now();
  }

  /** Calls that may be in flight now. */
  get current(): number {
    if (this.#probe !== undefined) {
      if (this.#now() - this.#probe.startedAt < probeMaxMs) return this.#min;
      this.#endProbe(this.#now());
    }
    return Math.floor(this.#limit + 1e-9);
  }

  record(sample: LimitSample): void {
    let baseline = this.#baselines.get(sample.key);
    if (baseline === undefined) {
      baseline = new Baseline();
      this.#baselines.set(sample.key, baseline);
    }
    const rest = baseline.ms;
    // Quiet at both ends: the first calls of a burst, read late by a gateway busy with the rest, are not.
    const quiet = Math.max(sample.inFlight, sample.inFlightAtEnd ?? 0) <= this.#min;
    baseline.learn(sample.rttMs, quiet);
    const now = this.#now();
    if (this.#probe !== undefined) {
      if (quiet && now - sample.rttMs >= this.#probe.startedAt) this.#probe.left -= 1;
      if (this.#probe.left <= 0 || now - this.#probe.startedAt >= probeMaxMs) this.#endProbe(now);
      return;
    }
    // A call started before the last change says nothing about the new limit.
    if (now - sample.rttMs < this.#windowStart) return;
    this.#started += 1;
    if (Number.isFinite(rest) && rest > 0) this.#calls.push({ rttMs: sample.rttMs, restMs: rest });
    this.#peakInFlight = Math.max(this.#peakInFlight, sample.inFlight);
    if (sample.overloaded === true) this.#overloaded = true;
    if (now - this.#windowStart < this.#windowMs) return;
    if (this.#started >= this.#minSamples && this.#probeDue(now)) {
      this.#probe = { startedAt: now, left: probeCalls, resume: this.#limit };
    } else if (this.#calls.length >= this.#minSamples) {
      this.#decide();
    } else {
      return;
    }
    this.#nextWindow(now);
  }

  #nextWindow(now: number): void {
    this.#windowStart = now;
    this.#calls = [];
    this.#started = 0;
    this.#peakInFlight = 0;
    this.#overloaded = false;
  }

  /** The limit is in use, and no probe told the latency at rest within the interval. */
  #probeDue(now: number): boolean {
    return (
      Number.isFinite(this.#probeIntervalMs) &&
      this.#peakInFlight >= 0.8 * this.#limit &&
      (this.#probedAt === undefined || now - this.#probedAt >= this.#probeIntervalMs)
    );
  }

  #endProbe(now: number): void {
    this.#limit = this.#probe?.resume ?? this.#limit;
    this.#probe = undefined;
    this.#probedAt = now;
    // the calls of the probe say nothing about the limit it goes back to
    this.#nextWindow(now);
    this.#slowBefore = false;
    // the gateway's own delay and load of the next decision count from here
    this.#ownDelayMs();
    this.#ownCpu();
  }

  #decide(): void {
    const own = this.#ownDelayMs();
    const busy = this.#ownCpu() >= busyShare;
    // A gateway late by half a latency at rest or more (its core taken away) cannot tell the
    // appliance's latency: taken off, its own delay turned slow windows into fast ones.
    if (own >= 0.5 * median(this.#calls.map((c) => c.restMs)) && !this.#overloaded) return;
    // Busy, it grows only on calls fast as measured: its delay taken off, such a window
    // looked fast at an appliance's knee, and the limit grew past it.
    const late = busy ? 0 : own;
    const ratio = median(this.#calls.map((c) => Math.max(0, c.rttMs - late) / c.restMs));
    const used = Math.min(this.#limit, this.#peakInFlight);
    const slow = ratio > this.#tolerance;
    // One slow window may be a stall (a collection, a core taken away): it takes two in a row.
    const wasSlow = this.#slowBefore;
    // A gateway busy most of the window makes its calls slow itself, and fewer calls in flight
    // would only wait in its queue: its window shrinks nothing, and ends a row of slow ones.
    this.#slowBefore = slow && !busy;
    if ((slow && wasSlow && !busy) || this.#overloaded) {
      let factor = Math.max(0.7, Math.min(1, this.#tolerance / ratio));
      if (this.#overloaded) factor = Math.min(factor, 0.9);
      this.#limit = clamp(Math.min(this.#limit, used * factor), this.#min, this.#max);
      this.#streak = 0;
    } else if (!slow && this.#peakInFlight >= 0.8 * this.#limit) {
      this.#streak += 1;
      const step = Math.min(this.#streak, Math.max(1, Math.sqrt(this.#limit)));
      this.#limit = clamp(this.#limit + step, this.#min, this.#max);
    }
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** Sorts `values` in place. */
function median(values: number[]): number {
  values.sort((a, b) => a - b);
  const middle = values.length >> 1;
  return values.length % 2 === 1
    ? (values[middle] ?? 0)
    : ((values[middle - 1] ?? 0) + (values[middle] ?? 0)) / 2;
}
