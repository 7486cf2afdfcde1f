/**
 * Bench-only preload for the gateway (`node --import ./test/bench/loop-delay.ts
 * src/main.ts`): measures how long the event loop was held up
 * (perf_hooks monitorEventLoopDelay, 10 ms resolution) and writes, every
 * 500 ms, one line on stderr: `bench-loop-delay {"at":<epoch ms>,"maxMs":n,"p99Ms":n,
 * "heapMB":n,"externalMB":n}` for the interval just ended (the delays) and
 * its end (V8's heap and the memory outside it, such as Buffers).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const loopDelayPrefix = 'bench-loop-delay ';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
setInterval(() => {
  const line = {
    at: Date.now(),
    maxMs: histogram.max / 1e6,
    p99Ms: histogram.percentile(99) / 1e6,
    ...memory(),
  };
  histogram.reset();
  process.stderr.write(`${loopDelayPrefix}${JSON.stringify(line)}\n`);
}, 500).unref();

function memory(): { heapMB: number; externalMB: number } {
  const usage = process.memoryUsage();
  return { heapMB: usage.heapTotal / 2 ** 20, externalMB: usage.external / 2 ** 20 };
}
