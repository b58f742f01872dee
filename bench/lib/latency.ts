/** Nearest-rank percentile of samples sorted ascending. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
}

export interface LatencySummary {
  n: number;
  minMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

/** Nearest-rank p50/p90/p99 (with fewer than 100 samples p99 is the maximum), min, max and mean, in ms. */
export function summarise(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    minMs: round(sorted[0] ?? Number.NaN),
    p50Ms: round(percentile(sorted, 0.5)),
    p90Ms: round(percentile(sorted, 0.9)),
    p99Ms: round(percentile(sorted, 0.99)),
    maxMs: round(sorted.at(-1) ?? Number.NaN),
    meanMs: round(mean),
  };
}

/** How many samples fall under each bound (ms), and over the last: the shape of the distribution. */
export function histogram(
  samples: readonly number[],
  boundsMs: readonly number[] = [5, 10, 20, 50, 100, 200, 500, 1000, 5000, 30_000],
): Record<string, number> {
  const buckets: Record<string, number> = {};
  let lower = 0;
  for (const bound of boundsMs) {
    buckets[`${lower}-${bound} ms`] = samples.filter((value) => value >= lower && value < bound).length;
    lower = bound;
  }
  buckets[`>= ${lower} ms`] = samples.filter((value) => value >= lower).length;
  return buckets;
}
