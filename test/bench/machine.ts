import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, release, totalmem, type } from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  date: string;
}

export function describeMachine(): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${distribution()} (${type()} ${release()})`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

function distribution(): string {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(text)?.[1] ?? type();
  } catch {
    return type();
  }
}

/** Whole-machine CPU time from /proc/stat, in ticks: all of it, and what the hypervisor stole. */
export interface CpuTicks {
  total: number;
  steal: number;
}

/** Undefined where /proc/stat is missing or has no steal column (not Linux, old kernels). */
export function cpuTicks(): CpuTicks | undefined {
  let line: string | undefined;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return undefined;
  }
  // cpu user nice system idle iowait irq softirq steal guest guest_nice
  const fields = line?.split(/\s+/).slice(1, 9).map(Number) ?? [];
  if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return undefined;
  return { total: fields.reduce((sum, n) => sum + n, 0), steal: fields[7] ?? 0 };
}

/**
 * The share of CPU time the hypervisor gave to other guests between two
 * readings: a virtual machine's cores stop now and then while the host runs
 * something else, which no process inside can see or avoid.
 */
export function stealShare(
  before: CpuTicks | undefined,
  after: CpuTicks | undefined,
): number | undefined {
  if (before === undefined || after === undefined || after.total <= before.total) return undefined;
  return (after.steal - before.steal) / (after.total - before.total);
}
