/**
 * Bench-only preload for the gateway (`node --import ./test/bench/memory-probe.ts
 * src/main.ts`): every second, one line on stderr, `bench-memory {...}`, with
 * what the process's resident memory is made of (memory-sample.ts).
 */
import { memoryPrefix, memorySample } from './memory-sample.ts';

setInterval(() => {
  process.stderr.write(`${memoryPrefix}${JSON.stringify(memorySample())}\n`);
}, 1000).unref();
