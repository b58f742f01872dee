/** How long a tenant's quota lasts before it starts again: a UTC day, a UTC month, or for ever. */
export const QUOTA_PERIODS = ['day', 'month', 'lifetime'] as const;
export type QuotaPeriod = (typeof QUOTA_PERIODS)[number];

/** The UTC period a moment falls in: the day, the month, or all time (from the epoch, no end). */
export function periodOf(kind: QuotaPeriod, at: Date): { start: Date; end: Date | null } {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  switch (kind) {
    case 'day': {
      const start = new Date(Date.UTC(y, m, at.getUTCDate()));
      return { start, end: new Date(start.getTime() + 86_400_000) };
    }
    case 'month':
      return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1)) };
    case 'lifetime':
      return { start: new Date(0), end: null };
  }
}
