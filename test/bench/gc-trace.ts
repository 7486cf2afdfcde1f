import type { Readable } from 'node:stream';

/** Heap live after each full GC (MB), from the `--trace-gc` lines of the process's stdout. */
export function watchFullGcs(stdout: Readable | null): number[] {
  const live: number[] = [];
  let partial = '';
  stdout?.on('data', (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const after = / Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \(/.exec(line)?.[1];
      if (after !== undefined) live.push(Number(after));
    }
  });
  return live;
}
