import type { LeadContact } from '../domain/lead.ts';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** The fields a message taught of a conversation's lead (null: not learned, the stored value stays). */
export interface LeadPatch extends LeadContact {
  conversationId: string;
}

/**
 * messaging_leads: one lead per conversation. Each lead is written by one atomic
 * `INSERT ... ON CONFLICT DO UPDATE` that merges the new fields into the old ones and recomputes `status`
 * in the same statement with `messaging_lead_status` (migrations/messaging/0002_staff_api.sql; README, "How a
 * message flows", point 4: incomplete when the name or the email is missing, captured with both, qualified
 * with a phone as well), the rule the staff API's patch recomputes with too. Many leads (a
 * processing batch) go in one statement.
 */
export const leadStore = {
  async upsertMany(db: Queryable, patches: readonly LeadPatch[], now: Date): Promise<void> {
    if (patches.length === 0) return;
    await db.query(
      `INSERT INTO messaging_leads AS l (conversation_id, name, email, phone, status, created_at, updated_at, captured_at)
       SELECT u.conversation_id, u.name, u.email, u.phone,
              messaging_lead_status(u.name, u.email, u.phone),
              $5, $5, CASE WHEN u.name IS NOT NULL AND u.email IS NOT NULL THEN $5::timestamptz END
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS u(conversation_id, name, email, phone)
       ON CONFLICT (conversation_id) DO UPDATE SET
         name = COALESCE(EXCLUDED.name, l.name),
         email = COALESCE(EXCLUDED.email, l.email),
         phone = COALESCE(EXCLUDED.phone, l.phone),
         status = messaging_lead_status(COALESCE(EXCLUDED.name, l.name), COALESCE(EXCLUDED.email, l.email),
                                        COALESCE(EXCLUDED.phone, l.phone)),
         captured_at = COALESCE(l.captured_at,
           CASE WHEN COALESCE(EXCLUDED.name, l.name) IS NOT NULL AND COALESCE(EXCLUDED.email, l.email) IS NOT NULL
                THEN EXCLUDED.updated_at END),
         updated_at = EXCLUDED.updated_at`,
      [
        patches.map((p) => p.conversationId),
        patches.map((p) => p.name),
        patches.map((p) => p.email),
        patches.map((p) => p.phone),
        now,
      ],
    );
  },
};
