import {
  BootError,
  type Database,
  type Logger,
  type Loop,
  startLoop,
} from '../../../../gateway/src/plugin-api.ts';
import { leadCountStore } from '../store/lead-count-store.ts';

/** Deltas one compaction statement folds at most: a backlog drains in short transactions. */
const COMPACTION_BATCH = 10_000;

/**
 * Makes the summary's counts be kept in `zone` (MESSAGING_SUMMARY_TIME_ZONE): when they are kept in another
 * one, counts every lead again, in one transaction (ADR 0012). Runs at boot, before any route serves.
 */
export async function useSummaryZone(deps: { db: Database; logger: Logger }, zone: string): Promise<void> {
  if (!(await leadCountStore.zoneKnown(deps.db, zone))) {
    throw new BootError([`MESSAGING_SUMMARY_TIME_ZONE: PostgreSQL does not know the time zone ${zone}`]);
  }
  if ((await leadCountStore.zone(deps.db)) === zone) return;
  const startedAt = Date.now();
  const rows = await leadCountStore.recount(deps.db, zone);
  if (rows === null) return;
  deps.logger.info(
    { zone, countRows: rows, durationMs: Date.now() - startedAt },
    'leads summary counts rebuilt for a new MESSAGING_SUMMARY_TIME_ZONE',
  );
}

/**
 * The loop folding the lead triggers' deltas into the summary's counts. Every replica may run it: the
 * compactions take turns and never count a delta twice (store/lead-count-store.ts).
 */
export function startLeadCountCompaction(deps: { db: Database; logger: Logger; intervalMs: number }): Loop {
  return startLoop({
    name: 'lead-count-compaction',
    intervalMs: deps.intervalMs,
    logger: deps.logger,
    pass: () => leadCountStore.compact(deps.db, COMPACTION_BATCH),
  });
}
