/** The value below which `p` (0..1) of the sorted samples lie (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function summarize(samples: readonly number[]): {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
} {
  const sorted = Float64Array.from(samples).sort();
  const list = Array.from(sorted);
  const sum = list.reduce((total, value) => total + value, 0);
  return {
    p50: percentile(list, 0.5),
    p90: percentile(list, 0.9),
    p99: percentile(list, 0.99),
    mean: list.length === 0 ? Number.NaN : sum / list.length,
    max: list.at(-1) ?? Number.NaN,
  };
}

export function median(samples: readonly number[]): number {
  return percentile(Array.from(Float64Array.from(samples).sort()), 0.5);
}
