/**
 * Bench-only preload for the gateway (`node --import ./test/bench/loop-delay.ts
 * src/main.ts`): measures how long the event loop was held up
 * (perf_hooks monitorEventLoopDelay, 10 ms resolution) and writes, every
 * 500 ms, one line on stderr: `bench-loop-delay {"at":<epoch ms>,"maxMs":n,"p99Ms":n,
 * "busyMs":n,"heapMB":n,"externalMB":n}` for the interval just ended (the
 * delays) and its end (V8's heap and the memory outside it, such as Buffers).
 *
 * A delay is wall time: it also counts time the operating system gave the
 * core to other processes. `busyMs` tells the two apart: the most CPU time
 * the main thread used between two ticks of a 10 ms timer (a task that holds
 * the loop for 150 ms shows about 150; a 150 ms wait for the core, about 0).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const loopDelayPrefix = 'bench-loop-delay ';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();

let busyMs = 0;
let lastCpu = threadCpuMs();
setInterval(() => {
  const cpu = threadCpuMs();
  busyMs = Math.max(busyMs, cpu - lastCpu);
  lastCpu = cpu;
}, 10).unref();

function threadCpuMs(): number {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
}

setInterval(() => {
  const line = {
    at: Date.now(),
    maxMs: histogram.max / 1e6,
    p99Ms: histogram.percentile(99) / 1e6,
    busyMs,
    ...memory(),
  };
  histogram.reset();
  busyMs = 0;
  process.stderr.write(`${loopDelayPrefix}${JSON.stringify(line)}\n`);
}, 500).unref();

function memory(): { heapMB: number; externalMB: number } {
  const usage = process.memoryUsage();
  return { heapMB: usage.heapTotal / 2 ** 20, externalMB: usage.external / 2 ** 20 };
}
