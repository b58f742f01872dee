import { describe, expect, it } from 'vitest';
import { calendarDays, leadSummaryView } from './lead-summary.ts';

describe('calendarDays', () => {
  it('lists every day from the first to the last, across months, leap days and years', () => {
    expect(calendarDays('2028-02-27', '2028-03-02')).toEqual([
      '2028-02-27',
      '2028-02-28',
      '2028-02-29',
      '2028-03-01',
      '2028-03-02',
    ]);
    expect(calendarDays('2026-12-31', '2027-01-01')).toEqual(['2026-12-31', '2027-01-01']);
    expect(calendarDays('2026-03-29', '2026-03-29')).toEqual(['2026-03-29']);
    expect(calendarDays('2025-01-01', '2026-01-01')).toHaveLength(366);
  });
});

describe('leadSummaryView', () => {
  it('fills every status and day with zeros, and orders clusters most first', () => {
    const view = leadSummaryView(
      { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-03-04T00:00:00Z'), tz: 'UTC' },
      {
        byStatus: [
          { status: 'captured', count: 2 },
          { status: 'converted', count: 1 },
        ],
        byCluster: [
          { clusterId: null, count: 1 },
          { clusterId: 'b', count: 1 },
          { clusterId: 'a', count: 1 },
        ],
        byDay: [{ date: '2026-03-02', count: 3 }],
        firstDay: '2026-03-01',
        lastDay: '2026-03-03',
      },
    );
    expect(view).toEqual({
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-04T00:00:00.000Z',
      tz: 'UTC',
      total: 3,
      byStatus: { incomplete: 0, captured: 2, qualified: 0, contacted: 0, converted: 1, disqualified: 0 },
      byCluster: [
        { clusterId: null, count: 1 },
        { clusterId: 'a', count: 1 },
        { clusterId: 'b', count: 1 },
      ],
      byDay: [
        { date: '2026-03-01', count: 0 },
        { date: '2026-03-02', count: 3 },
        { date: '2026-03-03', count: 0 },
      ],
    });
  });
});
