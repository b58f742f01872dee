import type { Database } from '../../../../gateway/src/plugin-api.ts';
import { leadCsvHeader, leadCsvRow } from '../domain/lead-csv.ts';
import { type LeadPosition, leadOrder } from '../domain/lead-cursor.ts';
import type { LeadFilterQuery } from '../domain/lead-schemas.ts';
import { clusterLimit, type StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { leadQueryStore } from '../store/lead-query-store.ts';

/** Rows one query of the export reads: memory stays bounded whatever the export's size. */
export const EXPORT_BATCH_ROWS = 1_000;

/** Where the CSV goes. `write` resolves once the text may be followed by more; false: stop (gone). */
export interface CsvSink {
  write(text: string): Promise<boolean>;
}

export interface LeadExportDeps {
  db: Database;
  /** MESSAGING_EXPORT_MAX_ROWS. */
  maxRows: number;
}

/**
 * The CSV export of a v2 filter (README, "Staff API", "CSV export"). First a count that stops at one row
 * past the bound: an export over MESSAGING_EXPORT_MAX_ROWS is refused before anything is sent. Then the
 * rows in keyset batches, each written only once the previous one was taken by the client, so a slow
 * client holds neither a database connection nor more than one batch of memory. The walk writes no more
 * than the bound, however many leads arrive meanwhile. `open` is called once the export is accepted and
 * returns where to write it.
 */
export async function exportLeads(
  deps: LeadExportDeps,
  scope: StaffScope,
  query: LeadFilterQuery,
  open: () => CsvSink,
): Promise<void> {
  const { sort, ...filter } = query;
  const clusters = clusterLimit(scope);
  const matching = await leadQueryStore.countUpTo(deps.db, filter, clusters, deps.maxRows + 1);
  if (matching > deps.maxRows) {
    throw messagingErrors.create('messaging.export.too_large', {
      detail: `More than ${deps.maxRows} leads match; narrow the filter.`,
    });
  }
  const sink = open();
  if (!(await sink.write(leadCsvHeader()))) return;
  const order = leadOrder(sort);
  let after: LeadPosition | null = null;
  for (let left = deps.maxRows; left > 0;) {
    const rows = await leadQueryStore.page(deps.db, {
      filter,
      order,
      after,
      limit: Math.min(EXPORT_BATCH_ROWS, left),
      clusters,
    });
    if (rows.length === 0) return;
    if (!(await sink.write(rows.map((row) => leadCsvRow(row.lead)).join('')))) return;
    left -= rows.length;
    after = rows.at(-1)?.position ?? null;
    if (rows.length < EXPORT_BATCH_ROWS) return;
  }
}
