import type { LeadFilterQuery } from '../domain/lead-schemas.ts';
import type { LeadRecord } from '../domain/lead-views.ts';

/**
 * What the lead stores share: the columns of a lead (table alias `l`), their mapping to a LeadRecord, the
 * filters of the v2 list and export as conditions, and numbered parameters. Every value reaches PostgreSQL
 * as a parameter; the SQL text is made only of the literals below.
 */
export const LEAD_COLUMNS = `l.id, l.conversation_id, l.cluster_id, l.source, l.name, l.email, l.phone,
  l.effective_status, l.status, l.status_override, l.notes, l.version, l.created_at, l.updated_at,
  l.captured_at`;

export interface LeadRow {
  id: string;
  conversation_id: string | null;
  cluster_id: string | null;
  source: LeadRecord['source'];
  name: string | null;
  email: string | null;
  phone: string | null;
  effective_status: LeadRecord['status'];
  status: LeadRecord['computedStatus'];
  status_override: LeadRecord['statusOverride'];
  notes: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  captured_at: Date | null;
}

export function toLeadRecord(row: LeadRow): LeadRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    clusterId: row.cluster_id,
    source: row.source,
    name: row.name,
    email: row.email,
    phone: row.phone,
    status: row.effective_status,
    computedStatus: row.status,
    statusOverride: row.status_override,
    notes: row.notes,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    capturedAt: row.captured_at,
  };
}

/** Numbered parameters of one statement. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value; returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The scope as a condition: an agent's clusters (null: an admin, no limit). */
export function scopeCondition(clusters: readonly string[] | null, params: SqlParams): string[] {
  return clusters === null ? [] : [`l.cluster_id = ANY(${params.add(clusters)}::uuid[])`];
}

/** LIKE's special characters taken literally: a search is for the text typed, never a pattern. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (special) => `\\${special}`);
}

/** The v2 filters as conditions on `l` (sort excluded). */
export function filterConditions(filter: Omit<LeadFilterQuery, 'sort'>, params: SqlParams): string[] {
  const where: string[] = [];
  if (filter.status) where.push(`l.effective_status = ANY(${params.add(filter.status)}::text[])`);
  if (filter.cluster) where.push(`l.cluster_id = ${params.add(filter.cluster)}::uuid`);
  if (filter.createdFrom) where.push(`l.created_at >= ${params.add(filter.createdFrom)}`);
  if (filter.createdTo) where.push(`l.created_at < ${params.add(filter.createdTo)}`);
  if (filter.updatedFrom) where.push(`l.updated_at >= ${params.add(filter.updatedFrom)}`);
  if (filter.updatedTo) where.push(`l.updated_at < ${params.add(filter.updatedTo)}`);
  if (filter.hasPhone !== undefined) where.push(filter.hasPhone ? 'l.phone IS NOT NULL' : 'l.phone IS NULL');
  if (filter.hasEmail !== undefined) where.push(filter.hasEmail ? 'l.email IS NOT NULL' : 'l.email IS NULL');
  if (filter.source) where.push(`l.source = ${params.add(filter.source)}`);
  // search_text is lower-cased by PostgreSQL; lower() here folds the typed text the same way. The
  // pattern is a literal between two wildcards, which the trigram index serves.
  if (filter.q)
    where.push(`l.search_text LIKE lower(${params.add(`%${likeLiteral(filter.q)}%`)}) ESCAPE '\\'`);
  return where;
}

export function whereClause(conditions: readonly string[]): string {
  return conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
}
