/**
 * `gatehouse_auth_sign_ins_total` of one sign-in method as {outcome: value}, as the gateway serves it now
 * (plugins/auth/README.md, "Sign-in metrics").
 */
export async function signInCounts(metricsUrl: string, method: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const prefix = `gatehouse_auth_sign_ins_total{method="${method}",outcome="`;
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const [labelEnd, value] = [line.indexOf('"}', prefix.length), line.slice(line.lastIndexOf(' ') + 1)];
    counts[line.slice(prefix.length, labelEnd)] = Number(value);
  }
  return counts;
}

/** What changed between two readings of `signInCounts`, outcomes that did not change left out. */
export function countsAdded(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([outcome, n]) => [outcome, n - (before[outcome] ?? 0)] as const)
      .filter(([, added]) => added !== 0),
  );
}
