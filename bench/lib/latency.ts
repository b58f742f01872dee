import { percentile } from '../../test/support/health-probe.ts';

export interface LatencySummary {
  n: number;
  minMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

/** Rounded to one decimal: latencies in ms and ratios, as the benchmarks report them. */
export function roundToTenth(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Nearest-rank p50/p90/p99 (with fewer than 100 samples p99 is the maximum), min, max and mean, in ms. */
export function summarise(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    minMs: roundToTenth(sorted[0] ?? Number.NaN),
    p50Ms: roundToTenth(percentile(sorted, 50)),
    p90Ms: roundToTenth(percentile(sorted, 90)),
    p99Ms: roundToTenth(percentile(sorted, 99)),
    maxMs: roundToTenth(sorted.at(-1) ?? Number.NaN),
    meanMs: roundToTenth(mean),
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
