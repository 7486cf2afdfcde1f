import { fmt } from './bench-context.ts';
import type { LoadResult } from './load-spec.ts';

/** A share of one core at which a process may be what caps a row's ops/s. */
export const saturated = 0.9;

/** Whether the load generator or the simulator (when not under test) used a whole core. */
export function rigSaturated(result: LoadResult): boolean {
  return [result.loadGenCoreShare, result.coreShares?.['simulator']].some(
    (share) => share !== undefined && share >= saturated,
  );
}

/** A process's CPU as a share of one core, marked when it may cap the row. */
export function coreCell(share: number | undefined): string {
  if (share === undefined) return 'n/a';
  return share >= saturated ? `${fmt.percent(share)} saturated` : fmt.percent(share);
}
