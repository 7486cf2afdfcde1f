import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, type AdaptiveLimitOptions } from '../../src/http/adaptive-limit.ts';
import { ConcurrencyLimiter } from '../../src/http/concurrency-limiter.ts';

/**
 * An adaptive limit on a clock the test moves; without probes unless asked
 * (the decisions of the windows between two probes).
 */
function limitOnClock(options: Partial<AdaptiveLimitOptions> = {}) {
  const clock = { ms: 0 };
  const limit = new AdaptiveLimit({
    initial: 32,
    min: 4,
    max: 256,
    probeIntervalMs: Number.POSITIVE_INFINITY,
    ...options,
    now: () => clock.ms,
  });
  return { limit, clock };
}

/**
 * One window of the appliance's life: `calls` calls of `key` that took `rttMs`
 * each with `inFlight` in flight, spread over 100 ms of the clock.
 */
function window(
  { limit, clock }: ReturnType<typeof limitOnClock>,
  sample: { rttMs: number; inFlight: number; key?: string; calls?: number; overloaded?: boolean },
): number {
  const calls = sample.calls ?? 20;
  // the calls start together, and end over the next 100 ms
  clock.ms += sample.rttMs;
  for (let i = 0; i < calls; i++) {
    clock.ms += 100 / calls;
    limit.record({
      key: sample.key ?? 'GET /workflows',
      rttMs: sample.rttMs,
      inFlight: sample.inFlight,
      ...(sample.overloaded === undefined ? {} : { overloaded: sample.overloaded }),
    });
  }
  return limit.current;
}

/** Calls at rest first: the latency every later call is compared with. */
function atRest(subject: ReturnType<typeof limitOnClock>, rttMs = 50, key?: string): void {
  window(subject, { rttMs, inFlight: 1, calls: 25, ...(key === undefined ? {} : { key }) });
}

describe('AdaptiveLimit', () => {
  it('grows while latency stays flat and the calls in flight reach the limit', () => {
    const subject = limitOnClock();
    atRest(subject);
    const seen = [subject.limit.current];
    for (let i = 0; i < 15; i++) {
      seen.push(window(subject, { rttMs: 52, inFlight: subject.limit.current }));
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1] ?? 0);
    expect(subject.limit.current).toBeGreaterThanOrEqual(110);
  });

  it('does not grow while the calls in flight stay well below the limit', () => {
    const subject = limitOnClock();
    atRest(subject);
    for (let i = 0; i < 20; i++) window(subject, { rttMs: 50, inFlight: 10 });
    expect(subject.limit.current).toBe(32);
  });

  it('shrinks when latency rises, to the calls in flight that keep it within the tolerance', () => {
    const subject = limitOnClock({ initial: 40 });
    atRest(subject);
    // 1.5 times as slow with 40 in flight, twice in a row: 40 × 1.2 / 1.5 = 32
    expect(window(subject, { rttMs: 75, inFlight: 40 })).toBe(40);
    expect(window(subject, { rttMs: 75, inFlight: 40 })).toBe(32);
  });

  it('takes one slow window for a stall, not for overload', () => {
    const subject = limitOnClock({ initial: 40 });
    atRest(subject);
    expect(window(subject, { rttMs: 300, inFlight: 40 })).toBe(40);
    expect(window(subject, { rttMs: 50, inFlight: 40 })).toBe(41);
  });

  it('shrinks by at most 30% in one window', () => {
    const subject = limitOnClock({ initial: 100 });
    atRest(subject);
    window(subject, { rttMs: 1000, inFlight: 100 });
    expect(window(subject, { rttMs: 1000, inFlight: 100 })).toBe(70);
  });

  it("does not take the gateway's own delay in reading answers for the appliance's", () => {
    const gateway = { delayMs: 0 };
    const subject = limitOnClock({ ownDelayMs: () => gateway.delayMs });
    atRest(subject);
    // busy: it reads every answer 20 ms late
    gateway.delayMs = 20;
    expect(window(subject, { rttMs: 70, inFlight: 32 })).toBeGreaterThan(32);
  });

  it('decides nothing in a window where the gateway itself was late by half the latency at rest or more', () => {
    const gateway = { delayMs: 0 };
    const subject = limitOnClock({ ownDelayMs: () => gateway.delayMs });
    atRest(subject);
    // its core taken away: 130 ms less its own 125 would look faster than at rest
    gateway.delayMs = 125;
    for (let i = 0; i < 5; i++) window(subject, { rttMs: 130, inFlight: 32 });
    expect(subject.limit.current).toBe(32);
    // nor slower: a slow window after it is the first in a row
    gateway.delayMs = 0;
    expect(window(subject, { rttMs: 100, inFlight: 32 })).toBe(32);
  });

  it("keeps its limit when the gateway's own load (70% of a core or more), not the appliance, makes calls slow", () => {
    const subject = limitOnClock({ ownCpu: () => 0.9 });
    atRest(subject);
    // 1.6 times as slow, twice in a row, with the gateway's loop using 90% of a core in each window
    window(subject, { rttMs: 80, inFlight: 32 });
    expect(window(subject, { rttMs: 80, inFlight: 32 })).toBe(32);
  });

  it('does not grow a limit its calls find slow while the gateway is busy, so a busy moment cannot push it past a knee', () => {
    const subject = limitOnClock({ ownCpu: () => 0.9 });
    atRest(subject);
    for (let i = 0; i < 5; i++) window(subject, { rttMs: 80, inFlight: 32 });
    expect(subject.limit.current).toBe(32);
  });

  it('judges a busy window by its calls as measured, its own delay not taken off, before it grows', () => {
    const subject = limitOnClock({ ownDelayMs: () => 20, ownCpu: () => 0.9 });
    atRest(subject);
    // 70 ms less 20 of its own would be as at rest; as measured, 1.4 times as slow
    for (let i = 0; i < 3; i++) window(subject, { rttMs: 70, inFlight: 32 });
    expect(subject.limit.current).toBe(32);
  });

  it('grows to the calls its clients ask for while its own load makes them look slow', () => {
    const gateway = { busy: 0 };
    const subject = limitOnClock({ ownCpu: () => gateway.busy });
    atRest(subject);
    // 100 clients, a flat appliance: the more calls, the busier the gateway and the later it reads them
    const seen: number[] = [];
    for (let i = 0; i < 40; i++) {
      const inFlight = Math.min(subject.limit.current, 100);
      gateway.busy = inFlight / 110;
      // about 1.05 times as slow as at rest while busy less than 70%; beyond,
      // 1.3-1.7 times on average, a window in three within the tolerance
      const rttMs = gateway.busy < 0.7 ? 52 : i % 3 === 2 ? 58 : 75;
      seen.push(window(subject, { rttMs, inFlight }));
    }
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(32);
    expect(subject.limit.current).toBeGreaterThanOrEqual(100);
  });

  it('ends a row of slow windows with a busy one: the slow windows around it do not make two in a row', () => {
    const gateway = { busy: 0 };
    const subject = limitOnClock({ initial: 40, ownCpu: () => gateway.busy });
    atRest(subject);
    expect(window(subject, { rttMs: 75, inFlight: 40 })).toBe(40);
    gateway.busy = 0.95;
    expect(window(subject, { rttMs: 75, inFlight: 40 })).toBe(40);
    // the gateway has time to spare again: this slow window is the first of a row, the next the second
    gateway.busy = 0.5;
    expect(window(subject, { rttMs: 75, inFlight: 40 })).toBe(40);
    expect(window(subject, { rttMs: 75, inFlight: 40 })).toBe(32);
  });

  it('still shrinks when the appliance answers that it is overloaded while the gateway is busy', () => {
    const subject = limitOnClock({ initial: 40, ownCpu: () => 0.95 });
    atRest(subject);
    expect(window(subject, { rttMs: 50, inFlight: 40, overloaded: true })).toBeLessThanOrEqual(36);
  });

  it('judges a new limit only by calls started after it was set', () => {
    const subject = limitOnClock({ initial: 40 });
    atRest(subject);
    window(subject, { rttMs: 75, inFlight: 40 });
    expect(window(subject, { rttMs: 75, inFlight: 40 })).toBe(32);
    // calls that were already running when the limit changed: no new decision
    for (let i = 0; i < 40; i++) {
      subject.clock.ms += 1;
      subject.limit.record({ key: 'GET /workflows', rttMs: 75, inFlight: 40 });
    }
    expect(subject.limit.current).toBe(32);
  });

  it('never goes above its ceiling nor below its floor', () => {
    const subject = limitOnClock({ initial: 32, min: 6, max: 40 });
    atRest(subject);
    for (let i = 0; i < 30; i++) window(subject, { rttMs: 50, inFlight: subject.limit.current });
    expect(subject.limit.current).toBe(40);
    for (let i = 0; i < 30; i++) window(subject, { rttMs: 5000, inFlight: 40 });
    expect(subject.limit.current).toBe(6);
  });

  it('settles at the knee of an appliance whose latency grows with the calls beyond 20', () => {
    const subject = limitOnClock({ initial: 32 });
    const appliance = (inFlight: number): number => 50 * Math.max(1, inFlight / 20);
    atRest(subject);
    const late: number[] = [];
    for (let i = 0; i < 200; i++) {
      const inFlight = subject.limit.current;
      window(subject, { rttMs: appliance(inFlight), inFlight });
      if (i >= 20) late.push(subject.limit.current);
    }
    expect(Math.min(...late)).toBeGreaterThanOrEqual(20);
    expect(appliance(Math.max(...late)) / 50).toBeLessThanOrEqual(1.3);
  });

  it('compares each route with its own latency at rest, so a mix of fast and slow routes is no overload', () => {
    const subject = limitOnClock();
    atRest(subject, 10, 'GET /workflows/{id}');
    atRest(subject, 300, 'GET /workflows');
    for (let i = 0; i < 10; i++) {
      const inFlight = subject.limit.current;
      window(subject, { rttMs: 11, inFlight, key: 'GET /workflows/{id}', calls: 10 });
      window(subject, { rttMs: 310, inFlight, key: 'GET /workflows', calls: 10 });
    }
    expect(subject.limit.current).toBeGreaterThan(32);
  });

  it('keeps the latency at rest from quiet calls only, so a long spell at the limit never becomes the norm', () => {
    const subject = limitOnClock({ initial: 30 });
    atRest(subject);
    for (let i = 0; i < 100; i++) window(subject, { rttMs: 75, inFlight: 30 });
    // 1.5 times as slow as at rest, however long it lasts: still shrunk
    expect(subject.limit.current).toBeLessThan(30);
  });

  it('learns a slower latency at rest from calls made with few in flight', () => {
    const subject = limitOnClock({ initial: 30 });
    atRest(subject, 50);
    atRest(subject, 100);
    for (let i = 0; i < 10; i++) window(subject, { rttMs: 100, inFlight: subject.limit.current });
    expect(subject.limit.current).toBeGreaterThan(30);
  });

  it('shrinks by at least a tenth when the appliance answers that it is overloaded', () => {
    const subject = limitOnClock({ initial: 100 });
    atRest(subject);
    expect(window(subject, { rttMs: 50, inFlight: 100, overloaded: true })).toBe(90);
  });

  it('decides on enough calls only: a window of fewer calls changes nothing', () => {
    const subject = limitOnClock({ initial: 40 });
    atRest(subject);
    expect(window(subject, { rttMs: 500, inFlight: 40, calls: 5 })).toBe(40);
  });
});

describe('ConcurrencyLimiter with an adaptive limit', () => {
  const never = new AbortController().signal;
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('lets more calls run as soon as the limit grows', async () => {
    const source = { current: 2 };
    const limiter = new ConcurrencyLimiter(source, 100);
    const granted: Array<() => void> = [];
    for (let i = 0; i < 10; i++) {
      void limiter.acquire(never, {}).then((release) => granted.push(release));
    }
    await settle();
    expect(limiter.running).toBe(2);
    source.current = 6;
    granted.shift()?.();
    await settle();
    expect(limiter.running).toBe(6);
    expect(limiter.queued).toBe(3);
    expect(limiter.limit).toBe(6);
  });

  it('gives one owner at most half of the current limit', async () => {
    const source = { current: 20 };
    const limiter = new ConcurrencyLimiter(source, 100);
    const heavy = {};
    for (let i = 0; i < 20; i++) void limiter.acquire(never, heavy);
    await settle();
    expect(limiter.running).toBe(10);
    source.current = 8;
    let waited = true;
    void limiter.acquire(never, {}).then(() => (waited = false));
    await settle();
    expect(waited).toBe(true);
    expect(limiter.running).toBe(10);
  });

  it('lets calls already running finish when the limit shrinks, and starts no more until below it', async () => {
    const source = { current: 4 };
    const limiter = new ConcurrencyLimiter(source, 100);
    const releases = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire(never, {})));
    let waiting = true;
    void limiter.acquire(never, {}).then(() => (waiting = false));
    source.current = 2;
    releases[0]?.();
    releases[1]?.();
    await settle();
    expect(waiting).toBe(true);
    expect(limiter.running).toBe(2);
    releases[2]?.();
    await settle();
    expect(waiting).toBe(false);
    expect(limiter.running).toBe(2);
  });
});

describe('AdaptiveLimit, decision by decision', () => {
  /**
   * A limit of 100 on a clock at 1 s: a window of 100 ms decides on its
   * first `minSamples` calls. Calls recorded before the first window began
   * (teaching the latency at rest) are learned and not judged.
   */
  function fresh(options: Partial<AdaptiveLimitOptions> = {}) {
    const clock = { ms: 1_000 };
    const limit = new AdaptiveLimit({
      initial: 100,
      min: 1,
      max: 1_000,
      minSamples: 1,
      windowMs: 100,
      probeIntervalMs: Number.POSITIVE_INFINITY,
      ...options,
      now: () => clock.ms,
    });
    const teach = (rtts: number[], inFlight = 1, key = 'k'): void => {
      for (const rttMs of rtts) limit.record({ key, rttMs, inFlight });
    };
    const at = (ms: number, rtts: number[], inFlight = 100, key = 'k'): number => {
      clock.ms = ms;
      for (const rttMs of rtts) limit.record({ key, rttMs, inFlight });
      return limit.current;
    };
    return { teach, at };
  }

  it('takes the fastest quiet call as the latency at rest until 8 quiet calls were seen', () => {
    const { teach, at } = fresh();
    teach([110, 100, 90, 80, 70, 60, 50]);
    // 75 against 50: 1.5 times slower, twice in a row: down to 1.2 / 1.5 of the calls in flight
    expect(at(1_100, [75])).toBe(100);
    expect(at(1_200, [75])).toBe(80);
  });

  it('takes the lower quartile of the quiet calls from the 8th on', () => {
    const { teach, at } = fresh();
    teach([120, 110, 100, 90, 80, 70, 60, 50]);
    // the quartile is 60: 75 is 1.25 times slower, down to 1.2 / 1.25
    expect(at(1_100, [75])).toBe(100);
    expect(at(1_200, [75])).toBe(96);
  });

  it('keeps the last 16 quiet calls', () => {
    const { teach, at } = fresh();
    teach([1, 2, 3, 4, 5, ...Array.from({ length: 12 }, () => 100)]);
    // the last 16 begin at 2: their quartile is 5
    expect(at(1_100, [7.5])).toBe(100);
    expect(at(1_200, [7.5])).toBe(80);
  });

  it('counts a call made with as many in flight as the floor as quiet', () => {
    const { teach, at } = fresh({ min: 4 });
    teach([120, 110, 100, 90, 80, 70, 60, 50], 4);
    expect(at(1_100, [75])).toBe(100);
    expect(at(1_200, [75])).toBe(96);
  });

  it('takes a latency of exactly the tolerance as no slower, and grows', () => {
    const { teach, at } = fresh();
    teach([50]);
    expect(at(1_100, [60])).toBe(101);
    expect(at(1_200, [60])).toBe(103);
  });

  it('grows when the calls in flight reach exactly 80% of the limit', () => {
    const { teach, at } = fresh();
    teach([50]);
    expect(at(1_100, [50], 80)).toBe(101);
    expect(at(1_200, [50], 79)).toBe(101);
  });

  it('judges no call of a route without a latency at rest, nor one whose latency at rest is 0', () => {
    const unknown = fresh();
    expect(unknown.at(1_100, [50], 100, 'new')).toBe(100);
    const zero = fresh();
    zero.teach([0], 1, 'z');
    expect(zero.at(1_100, [10], 100, 'z')).toBe(100);
    expect(zero.at(1_200, [10], 100, 'z')).toBe(100);
  });

  it('judges a window by the calls started at or after its beginning', () => {
    const { teach, at } = fresh();
    teach([50]);
    expect(at(1_100, [50])).toBe(101);
    // started at 1050, before this window began at 1100
    expect(at(1_200, [150])).toBe(101);
    // started at 1200; 2 times slower: one slow window is no shrink
    expect(at(1_300, [100])).toBe(101);
    // started at 1300, when this window began
    expect(at(1_400, [100])).toBe(70);
  });

  it('decides once the window has lasted its length, on the calls of all of it', () => {
    const { teach, at } = fresh();
    teach([50]);
    expect(at(1_050, [50])).toBe(100);
    // 1 and 2 times the latency at rest: the median is 1.5
    expect(at(1_100, [100])).toBe(100);
    expect(at(1_200, [75])).toBe(80);
  });

  it('takes the median of the calls of a window, odd or even in number', () => {
    const odd = fresh({ minSamples: 3 });
    odd.teach([50]);
    // 2, 1 and 1.5 times the latency at rest: 1.5
    expect(odd.at(1_100, [100, 50, 75])).toBe(100);
    expect(odd.at(1_200, [100, 50, 75])).toBe(80);
    const even = fresh({ minSamples: 4 });
    even.teach([50]);
    // 2, 1, 1.5 and 1.3: (1.3 + 1.5) / 2 = 1.4
    expect(even.at(1_100, [100, 50, 75, 65])).toBe(100);
    expect(even.at(1_200, [100, 50, 75, 65])).toBe(85);
  });
  it("takes slow calls in a window in which the gateway used exactly 70% of a core as its own, and at 69% as the appliance's", () => {
    const loop = { busy: 0.7 };
    const { teach, at } = fresh({ ownCpu: () => loop.busy });
    teach([50]);
    // twice as slow, twice in a row: not the appliance's
    expect(at(1_100, [100])).toBe(100);
    expect(at(1_200, [100])).toBe(100);
    loop.busy = 0.69;
    at(1_300, [100]);
    expect(at(1_400, [100])).toBeLessThan(100);
  });

  it("learns the latency at rest as measured, not less the gateway's own delay of another moment", () => {
    const { teach, at } = fresh({ ownDelayMs: () => 15 });
    teach([50]);
    // 65 less the own 15 is 50: as fast as at rest
    expect(at(1_100, [65])).toBe(101);
    // started before this window: only learned, as 40 (not 40 - 15, which would make 50 look slow)
    at(1_120, [40], 1);
    // 50 - 15 against 40: faster than at rest, so it grows
    expect(at(1_200, [50])).toBe(103);
  });
});

describe('AdaptiveLimit probes the latency at rest', () => {
  /** A limit on a clock; each call ends at the clock and took `rttMs`. */
  function probing(options: Partial<AdaptiveLimitOptions> = {}) {
    const clock = { ms: 1_000 };
    const limit = new AdaptiveLimit({
      initial: 32,
      min: 4,
      max: 256,
      minSamples: 1,
      windowMs: 100,
      ...options,
      now: () => clock.ms,
    });
    const call = (rttMs: number, inFlight: number): void =>
      limit.record({ key: 'k', rttMs, inFlight });
    return { limit, clock, call };
  }

  it('holds the limit at its floor the first time it is in use, until 12 calls at the floor have finished, then goes back', () => {
    const { limit, clock, call } = probing();
    clock.ms = 1_100;
    call(50, 32);
    expect(limit.current).toBe(4);
    for (let i = 0; i < 11; i++) {
      clock.ms += 20;
      call(15, 4);
    }
    expect(limit.current).toBe(4);
    clock.ms += 20;
    call(15, 4);
    expect(limit.current).toBe(32);
  });

  it('learns the latency at rest from the probe, not from quiet calls a busy gateway read late', () => {
    const { limit, clock, call } = probing();
    // a burst: the first calls were quiet, but their answers were read 40 ms late
    for (let i = 0; i < 4; i++) call(90, i + 1);
    clock.ms = 1_100;
    call(90, 32);
    for (let i = 0; i < 12; i++) {
      clock.ms += 60;
      call(50, 4);
    }
    expect(limit.current).toBe(32);
    // 75 ms with 32 in flight is 1.5 times the probe's 50 (but faster than the burst's 90): twice, it shrinks
    clock.ms += 100;
    call(75, 32);
    clock.ms += 100;
    call(75, 32);
    expect(limit.current).toBe(25);
  });

  it('probes again once the interval has passed while the limit is in use, not before', () => {
    const { limit, clock, call } = probing({ probeIntervalMs: 10_000 });
    clock.ms = 1_100;
    call(50, 32);
    clock.ms = 1_160;
    for (let i = 0; i < 12; i++) call(50, 4);
    expect(limit.current).toBe(32);
    for (let t = 1_200; t < 11_100; t += 100) {
      clock.ms = t;
      call(50, 10);
      expect(limit.current).toBe(32);
    }
    // in use again, 10 s after the last probe
    clock.ms = 11_200;
    call(50, 32);
    expect(limit.current).toBe(4);
  });

  it('ends a probe whose calls do not come after 2 s', () => {
    const { limit, clock, call } = probing();
    clock.ms = 1_100;
    call(50, 32);
    expect(limit.current).toBe(4);
    clock.ms = 3_100;
    expect(limit.current).toBe(32);
  });

  it('takes no call that ended with more than the floor in flight as quiet', () => {
    const { limit, clock } = probing({ probeIntervalMs: Number.POSITIVE_INFINITY });
    // the first calls of a burst: quiet as they started, read late as 32 others piled on
    for (let i = 0; i < 13; i++)
      limit.record({ key: 'k', rttMs: 90, inFlight: 1, inFlightAtEnd: 32 });
    for (let i = 0; i < 3; i++)
      limit.record({ key: 'k', rttMs: 50, inFlight: 1, inFlightAtEnd: 1 });
    // 75 against the 50 of the calls quiet at both ends: 1.5 times slower, twice
    clock.ms = 1_100;
    limit.record({ key: 'k', rttMs: 75, inFlight: 32 });
    clock.ms = 1_200;
    limit.record({ key: 'k', rttMs: 75, inFlight: 32 });
    expect(limit.current).toBe(25);
  });
});
