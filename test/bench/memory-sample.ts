/**
 * What a process's resident memory is made of: VmRSS split into anonymous and
 * file-backed pages (/proc/self/status), V8's heap by space (the young
 * generation is `new_space`), the memory of Buffers and other external
 * objects; what is left is the allocator, thread stacks and Node's own.
 * Written by the gateway's bench-only preload (memory-probe.ts).
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

export function memorySample(): MemorySample {
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
