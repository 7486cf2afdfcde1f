import { monitorEventLoopDelay } from 'node:perf_hooks';

const resolutionMs = 10;

/**
 * A reader of this process's own delay: each call answers how long, on
 * average, an answer arriving at a random moment since the previous call
 * waited for the event loop (ms), 0 when nothing was measured. A busy or
 * descheduled process reads every upstream answer late by about this much,
 * time that is the gateway's and not the appliance's. From an event-loop
 * delay monitor (an unreferenced 10 ms timer, one per reader): each interval
 * between two ticks beyond the resolution is time the loop was blocked, and
 * an arrival within a block of b ms waits b / 2 on average.
 */
export function loopLagReader(): () => number {
  const monitor = monitorEventLoopDelay({ resolution: resolutionMs });
  monitor.enable();
  return () => {
    const n = monitor.count;
    if (n === 0) return 0;
    const ms = 1e-6;
    const mean = monitor.mean * ms;
    const sd = monitor.stddev * ms;
    const total = n * mean;
    // Σ (x - r)² over the intervals x, from their count, mean and deviation
    const blocked = n * (sd * sd + mean * mean) - 2 * resolutionMs * total + n * resolutionMs ** 2;
    monitor.reset();
    return total > 0 ? Math.max(0, blocked / (2 * total)) : 0;
  };
}
