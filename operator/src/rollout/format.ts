/** Small pure helpers shared by the rollout decision and its condition messages. */

/** Whole seconds from `since` (ISO-8601) to `now`; NaN when `since` does not parse (no soak ever counts then). */
export function elapsedSeconds(since: string, now: Date): number {
  return (now.getTime() - Date.parse(since)) / 1000;
}

/** `since` plus `seconds`, as ISO-8601 (NaN-safe: an unparsable `since` gives "unknown"). */
export function addSeconds(since: string, seconds: number): string {
  const ms = Date.parse(since) + seconds * 1000;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : 'unknown';
}

/** A ratio as a percentage with three significant digits: 0.001 → "0.1%". */
export function formatRatio(ratio: number): string {
  return `${Number((ratio * 100).toPrecision(3))}%`;
}

/** A duration as the two largest of d/h/m/s: 90_000 → "1d1h", 300 → "5m". */
export function formatDuration(totalSeconds: number): string {
  if (!Number.isFinite(totalSeconds)) return 'unknown';
  const sign = totalSeconds < 0 ? '-' : '';
  let rest = Math.floor(Math.abs(totalSeconds));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return parts.length === 0 ? '0s' : sign + parts.slice(0, 2).join('');
}
