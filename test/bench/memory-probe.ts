/**
 * Bench-only preload for the gateway (`node --import ./test/bench/memory-probe.ts
 * src/main.ts`): every second, one line on stderr, `bench-memory {...}`, with
 * what the process's resident memory is made of: VmRSS split into anonymous
 * and file-backed pages (/proc/self/status), V8's heap by space (the young
 * generation is `new_space`), the memory of Buffers and other external
 * objects, and what is left (the allocator, thread stacks, Node's own).
 */
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

export const memoryPrefix = 'bench-memory ';

/** One sample; every size in MiB. */
export interface MemorySample {
  at: number;
  rss: number;
  /** Anonymous pages: the heap, the allocator, stacks. */
  anon: number;
  /** Pages of mapped files: mostly the node binary's code. */
  file: number;
  /** V8's heap spaces, as committed (space_size). */
  newSpace: number;
  oldSpace: number;
  /** Code, large objects and the rest of V8's spaces. */
  otherSpaces: number;
  /** Buffers and other memory V8 is told about but does not hold. */
  external: number;
}

const mib = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;

function statusKb(status: string, key: string): number {
  return Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) * 1024;
}

function sample(): MemorySample {
  const status = readFileSync('/proc/self/status', 'utf8');
  let newSpace = 0;
  let oldSpace = 0;
  let otherSpaces = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space') newSpace += space.space_size;
    else if (space.space_name === 'old_space') oldSpace += space.space_size;
    else otherSpaces += space.space_size;
  }
  return {
    at: Date.now(),
    rss: mib(statusKb(status, 'VmRSS')),
    anon: mib(statusKb(status, 'RssAnon')),
    file: mib(statusKb(status, 'RssFile')),
    newSpace: mib(newSpace),
    oldSpace: mib(oldSpace),
    otherSpaces: mib(otherSpaces),
    external: mib(process.memoryUsage().external),
  };
}

if (process.env['BENCH_MEMORY_PROBE'] !== 'off') {
  setInterval(() => {
    process.stderr.write(`${memoryPrefix}${JSON.stringify(sample())}\n`);
  }, 1000).unref();
}
