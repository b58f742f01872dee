import { LEAD_STATUSES, type LeadStatusName } from './lead-schemas.ts';
import type { LeadSummaryView } from './lead-views.ts';

/** The counts the summary is made of (the store groups them; see store/lead-summary-store.ts). */
export interface SummaryCounts {
  byStatus: ReadonlyArray<{ status: LeadStatusName; count: number }>;
  byCluster: ReadonlyArray<{ clusterId: string | null; count: number }>;
  byDay: ReadonlyArray<{ date: string; count: number }>;
  firstDay: string;
  lastDay: string;
}

/** Every calendar day from `first` to `last` (`YYYY-MM-DD`, both included). */
export function calendarDays(first: string, last: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${last}T00:00:00Z`);
  // Calendar arithmetic on UTC midnights: a day is always 24 hours there, whatever the zone counted in.
  for (let at = Date.parse(`${first}T00:00:00Z`); at <= end; at += 86_400_000) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

/**
 * The summary's JSON: every status and every day of the range present (zeros included) so a chart needs
 * no gaps filled; clusters most leads first, ties by id.
 */
export function leadSummaryView(
  range: { from: Date; to: Date; tz: string },
  counts: SummaryCounts,
): LeadSummaryView {
  const byStatus = Object.fromEntries(LEAD_STATUSES.map((status) => [status, 0])) as Record<
    LeadStatusName,
    number
  >;
  for (const { status, count } of counts.byStatus) byStatus[status] = count;
  const perDay = new Map(counts.byDay.map(({ date, count }) => [date, count]));
  return {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    tz: range.tz,
    total: counts.byStatus.reduce((sum, { count }) => sum + count, 0),
    byStatus,
    byCluster: [...counts.byCluster].sort(
      (a, b) => b.count - a.count || (a.clusterId ?? '').localeCompare(b.clusterId ?? ''),
    ),
    byDay: calendarDays(counts.firstDay, counts.lastDay).map((date) => ({
      date,
      count: perDay.get(date) ?? 0,
    })),
  };
}
