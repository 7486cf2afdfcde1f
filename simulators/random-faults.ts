import { faultKindName } from '../src/config.ts';
import type { Fault, FaultPlan } from './faults.ts';

/** A fault kind by its name; undefined for a name it is not. */
export function faultOfKind(kind: string): Fault | undefined {
  if (!faultKindName.test(kind)) return undefined;
  if (/^\d+$/.test(kind)) return { kind: 'status', status: Number(kind) };
  return { kind: kind as 'reset' | 'reset-mid-body' | 'malformed' | 'truncated' };
}

/**
 * Each request fails with probability `p`, with one of `kinds` picked evenly
 * (each rule's chance is of the requests the rules before it let through).
 */
export function injectRandomFaults(plan: FaultPlan, p: number, kinds: readonly Fault[]): void {
  const share = p / kinds.length;
  kinds.forEach((fault, index) => {
    if (share > 0) plan.inject({ fault, probability: share / (1 - index * share) });
  });
}
