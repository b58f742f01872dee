/** A Prometheus exposition read once: each sample's value by its series (`name{labels}`, as printed). */
export type Scrape = Map<string, number>;

/** Fetches `<metricsUrl>/metrics` and reads every sample line. */
export async function scrape(metricsUrl: string): Promise<Scrape> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const samples: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/**
 * The upper bound (s) of the histogram bucket holding quantile `q` of the observations made between two
 * scrapes (`le` buckets are cumulative); null without observations. A bound, not an interpolation: the
 * answer is "at most this".
 */
export function bucketQuantile(before: Scrape, after: Scrape, histogram: string, q: number): number | null {
  const buckets: Array<{ le: number; count: number }> = [];
  for (const [series, value] of after) {
    if (!series.startsWith(`${histogram}_bucket{`)) continue;
    const le = /le="([^"]+)"/.exec(series)?.[1];
    if (le === undefined) continue;
    buckets.push({ le: le === '+Inf' ? Infinity : Number(le), count: value - (before.get(series) ?? 0) });
  }
  buckets.sort((a, b) => a.le - b.le);
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return null;
  return buckets.find((bucket) => bucket.count >= q * total)?.le ?? null;
}
