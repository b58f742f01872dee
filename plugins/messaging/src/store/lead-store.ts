import type pg from 'pg';
import type { LeadFields } from '../conversation/types.ts';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface LeadRow {
  id: string;
  conversationId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  status: 'incomplete' | 'captured' | 'qualified';
}

/**
 * messaging_leads: one lead per conversation, written by one atomic upsert that merges the new fields and
 * recomputes `status` in the same statement (DECISIONS.md, "Lead status": incomplete when the name or the
 * email is missing, captured with both, qualified with a phone as well). `before` is the status the lead
 * had (null when the upsert created it), for the escalation rules.
 */
export const leadStore = {
  async upsert(
    db: Queryable,
    conversationId: string,
    fields: LeadFields,
    now: Date,
  ): Promise<{ lead: LeadRow; before: LeadRow['status'] | null }> {
    const { rows } = await db.query<LeadRow & { before: LeadRow['status'] | null }>(
      `WITH before AS (SELECT status FROM messaging_leads WHERE conversation_id = $1)
       INSERT INTO messaging_leads AS l (conversation_id, name, email, phone, status, created_at, updated_at, captured_at)
       VALUES ($1, $2, $3, $4,
               CASE WHEN $2::text IS NULL OR $3::text IS NULL THEN 'incomplete'
                    WHEN $4::text IS NULL THEN 'captured' ELSE 'qualified' END,
               $5, $5,
               CASE WHEN $2::text IS NOT NULL AND $3::text IS NOT NULL THEN $5::timestamptz END)
       ON CONFLICT (conversation_id) DO UPDATE SET
         name = COALESCE(EXCLUDED.name, l.name),
         email = COALESCE(EXCLUDED.email, l.email),
         phone = COALESCE(EXCLUDED.phone, l.phone),
         status = CASE
           WHEN COALESCE(EXCLUDED.name, l.name) IS NULL OR COALESCE(EXCLUDED.email, l.email) IS NULL THEN 'incomplete'
           WHEN COALESCE(EXCLUDED.phone, l.phone) IS NULL THEN 'captured'
           ELSE 'qualified' END,
         captured_at = COALESCE(l.captured_at,
           CASE WHEN COALESCE(EXCLUDED.name, l.name) IS NOT NULL AND COALESCE(EXCLUDED.email, l.email) IS NOT NULL
                THEN EXCLUDED.updated_at END),
         updated_at = EXCLUDED.updated_at
       RETURNING l.id, l.conversation_id AS "conversationId", l.name, l.email, l.phone, l.status,
                 (SELECT status FROM before) AS before`,
      [conversationId, fields.name ?? null, fields.email ?? null, fields.phone ?? null, now],
    );
    const { before, ...lead } = rows[0] as LeadRow & { before: LeadRow['status'] | null };
    return { lead, before };
  },

  async find(db: Queryable, conversationId: string): Promise<LeadRow | null> {
    const { rows } = await db.query<LeadRow>(
      `SELECT id, conversation_id AS "conversationId", name, email, phone, status
         FROM messaging_leads WHERE conversation_id = $1`,
      [conversationId],
    );
    return rows[0] ?? null;
  },
};
