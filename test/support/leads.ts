/**
 * Leads written straight into messaging_leads for the leads suites, as capture (a lead of a conversation,
 * `source = 'whatsapp'`) or staff (`source = 'manual'`) would leave them; `status` from the same SQL rule.
 */
import type { Queryable } from '../../gateway/src/plugin-api.ts';
import { messagingRows } from './realtime.ts';

export interface LeadSeed {
  clusterId: string | null;
  source?: 'whatsapp' | 'manual';
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  notes?: string | null;
  statusOverride?: string | null;
  createdAt?: Date | string;
  updatedAt?: Date | string;
}

/** One lead; a `whatsapp` lead (the default) gets a conversation of its own in the cluster. */
export async function seedLead(db: Queryable, seed: LeadSeed): Promise<string> {
  const source = seed.source ?? 'whatsapp';
  const conversationId = source === 'whatsapp' ? await messagingRows.conversation(db, seed.clusterId) : null;
  const createdAt = seed.createdAt ?? new Date();
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO messaging_leads (conversation_id, source, cluster_id, name, email, phone, notes, status_override,
       status, created_at, updated_at)
     VALUES ($1, $2, $3, $4::text, $5::text, $6::text, $7, $8, messaging_lead_status($4, $5, $6), $9, $10)
     RETURNING id`,
    [
      conversationId,
      source,
      seed.clusterId,
      seed.name ?? null,
      seed.email ?? null,
      seed.phone ?? null,
      seed.notes ?? null,
      seed.statusOverride ?? null,
      createdAt,
      seed.updatedAt ?? createdAt,
    ],
  );
  return rows[0]?.id as string;
}

/**
 * `count` manual leads in one statement, named `<prefix> <n>` with `<prefix>.<n>@example.com`, created
 * `stepMs` apart going back from `newest` (several at one instant when `stepMs` is 0). Returns their ids.
 */
export async function seedManyLeads(
  db: Queryable,
  options: { clusterId: string | null; count: number; prefix: string; newest: Date; stepMs: number },
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO messaging_leads (source, cluster_id, name, email, status, created_at, updated_at)
     SELECT 'manual', $1, $2 || ' ' || n, lower($2) || '.' || n || '@example.com', 'captured',
            $3::timestamptz - make_interval(secs => n * $4 / 1000.0),
            $3::timestamptz - make_interval(secs => n * $4 / 1000.0)
       FROM generate_series(1, $5::int) AS n
     RETURNING id`,
    [options.clusterId, options.prefix, options.newest, options.stepMs, options.count],
  );
  return rows.map((row) => row.id);
}
