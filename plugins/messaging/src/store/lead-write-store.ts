import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { LeadChanges } from '../domain/lead-schemas.ts';
import type { LeadRecord } from '../domain/lead-views.ts';
import {
  LEAD_COLUMNS,
  type LeadRow,
  scopeCondition,
  SqlParams,
  toLeadRecord,
  whereClause,
} from './lead-rows.ts';

export interface ManualLead {
  name: string;
  email: string | null;
  phone: string | null;
  notes: string | null;
  clusterId: string | null;
}

export interface LeadUpdate {
  id: string;
  changes: LeadChanges;
  /** The versions the write may apply to (null: any, `If-Match: *`). */
  versions: readonly number[] | null;
  clusters: readonly string[] | null;
  now: Date;
}

/** The contact fields, in the order `messaging_lead_status` takes them. */
const CONTACT_FIELDS = ['name', 'email', 'phone'] as const;

/**
 * Staff writes of messaging_leads (README, "Staff API", "Leads"). Each runs in the caller's transaction,
 * after `actAs`, so the status history's trigger records who made the change. The capture upsert
 * (lead-store.ts) is the other writer; both recompute `status` with `messaging_lead_status`.
 */
export const leadWriteStore = {
  /** Names the staff member the transaction writes for (until it ends). */
  async actAs(db: Queryable, userId: string): Promise<void> {
    await db.query(`SELECT set_config('messaging.actor', $1, true)`, [userId]);
  },

  /** Inserts a lead staff typed in; null when the named cluster does not exist. */
  async createManual(db: Queryable, lead: ManualLead, now: Date): Promise<LeadRecord | null> {
    const { rows } = await db.query<LeadRow>(
      `INSERT INTO messaging_leads AS l (source, cluster_id, name, email, phone, notes, status, created_at,
         updated_at, captured_at)
       SELECT 'manual', $1::uuid, $2::text, $3::text, $4::text, $5::text, messaging_lead_status($2, $3, $4), $6,
              $6, CASE WHEN $2::text IS NOT NULL AND $3::text IS NOT NULL THEN $6::timestamptz END
        WHERE $1::uuid IS NULL OR EXISTS (SELECT 1 FROM messaging_clusters WHERE id = $1::uuid)
       RETURNING ${LEAD_COLUMNS}`,
      [lead.clusterId, lead.name, lead.email, lead.phone, lead.notes, now],
    );
    return rows[0] ? toLeadRecord(rows[0]) : null;
  },

  /**
   * Applies staff changes in one statement: only a lead in the scope, and only at one of `versions`, is
   * written. `status` is recomputed from the fields as they will be, in the same statement, and
   * `captured_at` set the first time the lead has a name and an email, as the capture upsert does. Null
   * when no row matched (no such lead in the scope, or another version).
   */
  async update(db: Queryable, update: LeadUpdate): Promise<LeadRecord | null> {
    const params = new SqlParams();
    const { changes } = update;
    const next = (field: keyof LeadChanges, column: string): string =>
      changes[field] === undefined ? `l.${column}` : `${params.add(changes[field])}::text`;
    const [name, email, phone] = CONTACT_FIELDS.map((field) => next(field, field));
    const override = next('statusOverride', 'status_override');
    const notes = next('notes', 'notes');
    const now = params.add(update.now);
    const where = [`l.id = ${params.add(update.id)}`, ...scopeCondition(update.clusters, params)];
    if (update.versions !== null) where.push(`l.version = ANY(${params.add(update.versions)}::int[])`);
    const { rows } = await db.query<LeadRow>(
      `UPDATE messaging_leads AS l
          SET name = ${name}, email = ${email}, phone = ${phone}, status_override = ${override}, notes = ${notes},
              status = messaging_lead_status(${name}, ${email}, ${phone}),
              captured_at = COALESCE(l.captured_at,
                CASE WHEN ${name} IS NOT NULL AND ${email} IS NOT NULL THEN ${now}::timestamptz END),
              updated_at = ${now}
        ${whereClause(where)}
       RETURNING ${LEAD_COLUMNS}`,
      params.values,
    );
    return rows[0] ? toLeadRecord(rows[0]) : null;
  },
};
