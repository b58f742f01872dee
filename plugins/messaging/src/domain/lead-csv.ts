import type { LeadRecord } from './lead-views.ts';

/**
 * The CSV export's text (README, "Staff API", "CSV export"): RFC 4180 (comma-separated, CRLF line ends, a
 * field holding a comma, a quote or a line break quoted with its quotes doubled), with a header row naming
 * the JSON fields.
 */
export const LEAD_CSV_COLUMNS = [
  'id',
  'conversationId',
  'clusterId',
  'source',
  'name',
  'email',
  'phone',
  'status',
  'computedStatus',
  'statusOverride',
  'notes',
  'createdAt',
  'updatedAt',
  'capturedAt',
] as const;

/**
 * A spreadsheet reads a cell that starts with one of these as a formula, so a lead's notes or name could
 * run one on the machine of whoever opens the export. Such a cell is written with a leading `'`, which
 * spreadsheets take as "text" and do not show.
 */
const FORMULA_STARTS = new Set(['=', '+', '-', '@', '\t', '\r']);

/** One field: defused, then quoted when it must be. */
export function csvCell(value: string | null): string {
  if (value === null || value === '') return '';
  const defused = FORMULA_STARTS.has(value.charAt(0)) ? `'${value}` : value;
  return /[",\r\n]/.test(defused) ? `"${defused.replaceAll('"', '""')}"` : defused;
}

function csvRow(cells: ReadonlyArray<string | null>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The header row. */
export function leadCsvHeader(): string {
  return csvRow(LEAD_CSV_COLUMNS);
}

/** One lead as a row. */
export function leadCsvRow(lead: LeadRecord): string {
  return csvRow([
    lead.id,
    lead.conversationId,
    lead.clusterId,
    lead.source,
    lead.name,
    lead.email,
    lead.phone,
    lead.status,
    lead.computedStatus,
    lead.statusOverride,
    lead.notes,
    lead.createdAt.toISOString(),
    lead.updatedAt.toISOString(),
    lead.capturedAt?.toISOString() ?? null,
  ]);
}
