/**
 * Every sample of one metric the gateway serves now, keyed by its labels as served (`method="oidc",outcome="failure"`;
 * `''` for a metric without labels).
 */
export async function metricSamples(metricsUrl: string, name: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const samples: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const space = line.lastIndexOf(' ');
    const labels = line.startsWith(`${name}{`)
      ? line.slice(name.length + 1, line.lastIndexOf('}', space))
      : '';
    samples[labels] = Number(line.slice(space + 1));
  }
  return samples;
}

/** What was added between two readings of `metricSamples`; samples that did not change are left out. */
export function samplesAdded(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([labels, n]) => [labels, n - (before[labels] ?? 0)] as const)
      .filter(([, added]) => added !== 0),
  );
}
