import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { KneeLoad } from '../../simulators/knee.ts';

/** A response that is done when the test says so. */
function response(): ServerResponse & { finish(): void } {
  const emitter = new EventEmitter() as EventEmitter & { destroyed: boolean; finish(): void };
  emitter.destroyed = false;
  emitter.finish = () => emitter.emit('close');
  return emitter as unknown as ServerResponse & { finish(): void };
}

describe('KneeLoad (the simulators’ --knee)', () => {
  it('answers after the base latency up to the knee, then in proportion to the calls in flight', () => {
    const load = new KneeLoad(50, 20);
    const open = Array.from({ length: 40 }, () => response());
    const delays = open.map((r) => load.delayFor(r));
    expect(delays[0]).toBe(50);
    expect(delays[19]).toBe(50);
    expect(delays[29]).toBe(75);
    expect(delays[39]).toBe(100);
    for (const r of open.slice(0, 30)) r.finish();
    expect(load.delayFor(response())).toBe(50);
  });

  it('always answers after the base latency without a knee', () => {
    const load = new KneeLoad(50);
    const delays = Array.from({ length: 100 }, () => load.delayFor(response()));
    expect(new Set(delays)).toEqual(new Set([50]));
  });

  it('reports the calls in flight as they arrived, their peak, and starts afresh on reset', () => {
    const load = new KneeLoad(50, 20);
    const open = Array.from({ length: 10 }, () => response());
    for (const r of open) load.delayFor(r);
    let report = load.report();
    expect(report).toMatchObject({ calls: 10, inFlight: 10, peakInFlight: 10 });
    expect(report.inFlightAtArrival).toMatchObject({ p50: 5, p90: 9, p99: 10, max: 10 });
    for (const r of open) r.finish();
    load.reset();
    load.delayFor(response());
    report = load.report();
    expect(report).toMatchObject({ calls: 1, inFlight: 1, peakInFlight: 1 });
    expect(report.latencyMs.max).toBe(0);
  });
});
