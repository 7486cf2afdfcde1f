import type { BenchOptions } from './bench-options.ts';

/** What every scenario gets from the runner. */
export interface BenchContext {
  options: BenchOptions;
  /** taskset works and there are two cores or more. */
  pinning: boolean;
  /** Node flags for every gateway (e.g. --cpu-prof). */
  gatewayFlags: readonly string[];
  /** A progress line on stderr. */
  log(message: string): void;
}

const percent = (value: number): string => `${(value * 100).toFixed(1)}%`;

export const fmt = {
  ms: (value: number): string => value.toFixed(2),
  rate: (value: number): string => Math.round(value).toLocaleString('en-US'),
  percent,
  mib: (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`,
  /** A share that may be unknown (e.g. host steal off Linux). */
  share: (value: number | undefined): string => (value === undefined ? 'n/a' : percent(value)),
};
