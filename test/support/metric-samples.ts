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

/**
 * The labels of a `metricSamples` key as an object: `layer="gate",outcome="pass"` → {layer: 'gate', outcome: 'pass'}.
 * (Label values with an escaped quote are not expected here.)
 */
export function labelsOf(key: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let at = 0;
  for (;;) {
    const equals = key.indexOf('="', at);
    const close = equals < 0 ? -1 : key.indexOf('"', equals + 2);
    if (close < 0) return labels;
    labels[key.slice(at, equals)] = key.slice(equals + 2, close);
    at = close + 2; // past the closing quote and the comma
  }
}
