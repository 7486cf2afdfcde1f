/**
 * Paired rounds (cpu-ab.ts, floor-ab.ts, the features scenario): every target
 * is already running; each takes one warm-up run, then `rounds` rounds in
 * which every target takes the same load in turn, the order reversed every
 * other round, so that the drift of a shared machine falls on every target
 * alike. Each target's runs are kept in round order, so that two targets can
 * be compared round by round.
 */
import { runLoad } from './load.ts';
import type { LoadSpec } from './load-spec.ts';
import { median } from './stats.ts';

export interface PairedTarget {
  name: string;
  /** The process whose CPU time per operation is measured. */
  pid: number;
  /** The load of one run of `seconds`. */
  spec(seconds: number): LoadSpec;
  /** Other processes whose CPU time is reported as a share of a core (label → pid). */
  busyOf?: Record<string, number>;
  /** Run right before each of this target's runs (pin processes to cores, say). */
  before?(): void;
}

export interface PairedRun {
  cpuMsPerOp: number;
  /** Operations per second. */
  rate: number;
  /** The load generator's CPU time, as a share of a core. */
  loadGenCoreShare: number;
  /** `busyOf`'s processes' CPU time, as shares of a core. */
  coreShares: Record<string, number>;
}

export interface PairedOptions {
  rounds: number;
  /** Measured seconds of each run. */
  seconds: number;
  /** The warm-up run of each target, before the rounds (0: none). */
  warmupSeconds: number;
  /** Pin the load generator to these cores. */
  cores?: string | undefined;
  /** Told each round's runs as they end, in the order they ran. */
  onRound?(round: number, runs: ReadonlyArray<readonly [string, PairedRun]>): void;
}

/** The order of the targets in round `round` (from 0): as given in even rounds, reversed in odd ones. */
export function roundOrder<T>(targets: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...targets] : [...targets].reverse();
}

/** Every target's runs by name, in round order; throws when a run had errors. */
export async function pairedRounds(
  targets: readonly PairedTarget[],
  options: PairedOptions,
): Promise<Map<string, PairedRun[]>> {
  if (options.warmupSeconds > 0) {
    for (const target of targets) {
      target.before?.();
      await runLoad(target.spec(options.warmupSeconds), { cores: options.cores });
    }
  }
  const runs = new Map<string, PairedRun[]>(targets.map(({ name }) => [name, []]));
  for (let round = 0; round < options.rounds; round++) {
    const line: Array<readonly [string, PairedRun]> = [];
    for (const target of roundOrder(targets, round)) {
      target.before?.();
      const result = await runLoad(target.spec(options.seconds), {
        cores: options.cores,
        cpuOf: target.pid,
        ...(target.busyOf === undefined ? {} : { busyOf: target.busyOf }),
      });
      const failed = result.errors + result.non2xx + result.mismatches;
      if (failed > 0) throw new Error(`${target.name}: ${failed} errors under load`);
      const run: PairedRun = {
        cpuMsPerOp: result.cpuMsPerOp ?? Number.NaN,
        rate: result.rate,
        loadGenCoreShare: result.loadGenCoreShare ?? Number.NaN,
        coreShares: result.coreShares ?? {},
      };
      runs.get(target.name)?.push(run);
      line.push([target.name, run]);
    }
    options.onRound?.(round, line);
  }
  return runs;
}

/** One run as cpu-ab.ts prints it. */
export function describeRun(name: string, run: PairedRun): string {
  const shares = Object.entries(run.coreShares).map(
    ([label, share]) => `, ${label} ${Math.round(share * 100)}%`,
  );
  return (
    `${name}: ${run.cpuMsPerOp.toFixed(3)} ms/op, ${Math.round(run.rate)}/s, ` +
    `load gen ${Math.round(run.loadGenCoreShare * 100)}%${shares.join('')}`
  );
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  return {
    median: median(values),
    min: values.length === 0 ? Number.NaN : Math.min(...values),
    max: values.length === 0 ? Number.NaN : Math.max(...values),
  };
}

/** `0.412 (0.398-0.431)`: a median and its range, ms. */
export function spreadText(spread: Spread, digits = 3): string {
  return `${spread.median.toFixed(digits)} (${spread.min.toFixed(digits)}-${spread.max.toFixed(digits)})`;
}

/** What a feature costs: a target with it against one without, run in the same rounds. */
export interface FeatureCost {
  with: Spread;
  without: Spread;
  /** Median with minus median without, ms per operation. */
  costMs: number;
  /** `costMs` as a share of `base` (the default build's median). */
  share: number;
  /** Rounds in which the run with the feature took more CPU per operation than the one without. */
  higher: number;
  /** Rounds compared (both targets ran). */
  rounds: number;
}

/** Compares two targets' CPU per operation round by round (both lists in round order). */
export function featureCost(
  withFeature: readonly number[],
  withoutFeature: readonly number[],
  base: number,
): FeatureCost {
  const rounds = Math.min(withFeature.length, withoutFeature.length);
  let higher = 0;
  for (let round = 0; round < rounds; round++) {
    if ((withFeature[round] ?? 0) > (withoutFeature[round] ?? 0)) higher += 1;
  }
  const withSpread = spreadOf(withFeature);
  const withoutSpread = spreadOf(withoutFeature);
  const costMs = withSpread.median - withoutSpread.median;
  return {
    with: withSpread,
    without: withoutSpread,
    costMs,
    share: costMs / base,
    higher,
    rounds,
  };
}
