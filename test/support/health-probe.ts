/**
 * Measures how long `GET /health` takes while something else happens, for tests and benchmarks (no
 * gateway imports). One request at a time, back to back: a gateway whose event loop is held answers late,
 * and the probe sees exactly that delay.
 */

export interface HealthSample {
  /** Wall-clock time the request was sent (ms since the epoch), to compare with database timestamps. */
  sentAt: number;
  ms: number;
}

/** Probes `GET {baseUrl}/health` until `stop()` is true (checked between requests); every answer must be 200. */
export async function probeHealth(baseUrl: string, stop: () => boolean): Promise<HealthSample[]> {
  const samples: HealthSample[] = [];
  while (!stop()) {
    const sentAt = Date.now();
    const started = performance.now();
    const res = await fetch(`${baseUrl}/health`);
    await res.arrayBuffer();
    samples.push({ sentAt, ms: performance.now() - started });
    if (res.status !== 200) throw new Error(`GET /health answered ${res.status}`);
  }
  return samples;
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}
