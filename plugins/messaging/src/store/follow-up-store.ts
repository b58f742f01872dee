import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { FollowUpKind, FollowUpStatus, FollowUpTemplate } from '../domain/follow-up-schemas.ts';

/** A follow-up of the queue as stored. */
export interface FollowUpRow {
  id: string;
  conversationId: string;
  ruleId: string | null;
  manual: boolean;
  dueAt: Date;
  status: FollowUpStatus;
  text: string | null;
  templateName: string | null;
  templateLanguage: string | null;
  templateParameters: string[];
  attempts: number;
  lastError: string | null;
  messageId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A due follow-up claimed by the send pass, with what deciding it needs from its conversation. */
export interface ClaimedFollowUp extends FollowUpRow {
  basisAt: Date;
  /** A manual follow-up's author: the message is theirs. */
  requestedBy: string | null;
  kind: FollowUpKind | null;
  lastInboundAt: Date | null;
  agentActiveAt: Date | null;
  contactPhone: string | null;
  contactUserId: string | null;
  leadStatus: string | null;
}

const COLUMNS = `f.id, f.conversation_id AS "conversationId", f.rule_id AS "ruleId", f.manual, f.due_at AS "dueAt",
  f.status, f.text, f.template_name AS "templateName", f.template_language AS "templateLanguage",
  f.template_parameters AS "templateParameters", f.attempts, f.last_error AS "lastError",
  f.message_id AS "messageId", f.created_at AS "createdAt", f.updated_at AS "updatedAt"`;

/** What sending a follow-up did: queued as an outbox message, or not sent (and why). */
export type FollowUpOutcome =
  { status: 'sent'; messageId: string } | { status: 'cancelled' | 'skipped_outside_window'; reason: string };

/** The longest error text kept on a follow-up. */
const MAX_ERROR = 1000;

/** Rules' scheduling looks back at most this far past a due time (a gateway that was down skips older ones). */
const LOOKBACK = "interval '24 hours'";

/**
 * The follow-up queue (README, "Follow-ups"). The send pass claims due rows and their conversations with
 * `FOR UPDATE SKIP LOCKED`, so two replicas never take the same one, and it never waits on a row another
 * transaction holds (processing locks the conversation, then cancels its follow-ups: the other order).
 */
export const followUpStore = {
  /**
   * Schedules the follow-ups the enabled rules call for, due `delay_hours` after their basis: the contact's
   * last message for `lead_incomplete` (while the lead is incomplete), the last reply to them that was not
   * itself a follow-up for `no_reply`. A rule fires once per basis (a unique index); conversations an agent
   * holds (active after `heldAfter`) get none. Returns how many were scheduled.
   */
  async schedule(db: Queryable, now: Date, heldAfter: Date): Promise<number> {
    const incomplete = await db.query(
      `INSERT INTO messaging_follow_ups (conversation_id, rule_id, basis_at, due_at, text, template_name,
         template_language, template_parameters, created_at, updated_at)
       SELECT c.id, r.id, c.last_inbound_at, c.last_inbound_at + make_interval(hours => r.delay_hours),
              r.text, r.template_name, r.template_language, r.template_parameters, $1, $1
         FROM messaging_follow_up_rules r
         JOIN messaging_conversations c
           ON c.last_activity_at >= greatest(r.created_at, $1::timestamptz - make_interval(hours => r.delay_hours) - ${LOOKBACK})
          AND c.last_inbound_at >= greatest(r.created_at, $1::timestamptz - make_interval(hours => r.delay_hours) - ${LOOKBACK})
         JOIN messaging_leads l ON l.conversation_id = c.id AND l.effective_status = 'incomplete'
        WHERE r.enabled AND r.kind = 'lead_incomplete' AND (c.agent_active_at > $2) IS NOT TRUE
       ON CONFLICT DO NOTHING`,
      [now, heldAfter],
    );
    const noReply = await db.query(
      `INSERT INTO messaging_follow_ups (conversation_id, rule_id, basis_at, due_at, text, template_name,
         template_language, template_parameters, created_at, updated_at)
       SELECT c.id, r.id, o.created_at, o.created_at + make_interval(hours => r.delay_hours),
              r.text, r.template_name, r.template_language, r.template_parameters, $1, $1
         FROM messaging_follow_up_rules r
         JOIN messaging_conversations c
           ON c.last_activity_at >= greatest(r.created_at, $1::timestamptz - make_interval(hours => r.delay_hours) - ${LOOKBACK})
        CROSS JOIN LATERAL (
              SELECT m.created_at FROM messaging_messages m
               WHERE m.conversation_id = c.id AND m.direction = 'outbound'
                 AND NOT EXISTS (SELECT 1 FROM messaging_follow_ups s WHERE s.message_id = m.id)
               ORDER BY m.seq DESC LIMIT 1) o
        WHERE r.enabled AND r.kind = 'no_reply' AND (c.agent_active_at > $2) IS NOT TRUE
          AND o.created_at >= greatest(r.created_at, $1::timestamptz - make_interval(hours => r.delay_hours) - ${LOOKBACK})
          AND (c.last_inbound_at IS NULL OR o.created_at >= c.last_inbound_at)
       ON CONFLICT DO NOTHING`,
      [now, heldAfter],
    );
    return (incomplete.rowCount ?? 0) + (noReply.rowCount ?? 0);
  },

  /**
   * Claims up to `limit` due pending follow-ups with their conversations' rows, locked until the caller's
   * transaction ends; rows another transaction holds are skipped, never waited for.
   */
  async claimDue(tx: Queryable, now: Date, limit: number): Promise<ClaimedFollowUp[]> {
    const { rows } = await tx.query<ClaimedFollowUp>(
      `SELECT ${COLUMNS}, f.basis_at AS "basisAt", f.requested_by AS "requestedBy", r.kind, c.last_inbound_at AS "lastInboundAt",
              c.agent_active_at AS "agentActiveAt", c.contact_phone AS "contactPhone",
              c.contact_user_id AS "contactUserId", l.effective_status AS "leadStatus"
         FROM messaging_follow_ups f
         JOIN messaging_conversations c ON c.id = f.conversation_id
         LEFT JOIN messaging_follow_up_rules r ON r.id = f.rule_id
         LEFT JOIN messaging_leads l ON l.conversation_id = f.conversation_id
        WHERE f.status = 'pending' AND f.due_at <= $1
        ORDER BY f.due_at, f.id
        LIMIT $2
        FOR UPDATE OF f, c SKIP LOCKED`,
      [now, limit],
    );
    return rows;
  },

  /** Queues a follow-up's message in the outbox, due now (the sender sends it in the conversation's order). */
  async enqueue(
    tx: Queryable,
    message: {
      conversationId: string;
      authorUserId: string | null;
      type: 'text' | 'template';
      text: string | null;
      payload: Record<string, unknown>;
      at: Date;
    },
  ): Promise<string> {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO messaging_messages
         (conversation_id, direction, type, text, payload, created_at, delivery_status, author_user_id,
          next_send_at, send_attempts)
       VALUES ($1, 'outbound', $2, $3, $4, $5, 'pending', $6, $5, 0)
       RETURNING id`,
      [
        message.conversationId,
        message.type,
        message.text,
        JSON.stringify(message.payload),
        message.at,
        message.authorUserId,
      ],
    );
    await tx.query(
      `UPDATE messaging_conversations
          SET last_activity_at = greatest(last_activity_at, $2),
              last_message_text = coalesce($3, last_message_text), updated_at = $2
        WHERE id = $1`,
      [message.conversationId, message.at, message.text],
    );
    return (rows[0] as { id: string }).id;
  },

  /** Records what the send pass did with a claimed follow-up. */
  async settle(tx: Queryable, id: string, outcome: FollowUpOutcome, at: Date): Promise<void> {
    await tx.query(
      `UPDATE messaging_follow_ups
          SET status = $2, message_id = $3, last_error = $4, updated_at = $5,
              attempts = attempts + CASE WHEN $2 = 'sent' THEN 1 ELSE 0 END
        WHERE id = $1 AND status = 'pending'`,
      [
        id,
        outcome.status,
        outcome.status === 'sent' ? outcome.messageId : null,
        outcome.status === 'sent' ? null : outcome.reason,
        at,
      ],
    );
  },

  /** The outbox message carrying a follow-up failed for good: the follow-up takes that state. */
  async settleFailed(
    db: Queryable,
    messageId: string,
    status: 'failed' | 'failed_reengagement',
    error: string,
    at: Date,
  ): Promise<void> {
    await db.query(
      `UPDATE messaging_follow_ups SET status = $2, last_error = $3, updated_at = $4
        WHERE message_id = $1 AND status = 'sent'`,
      [messageId, status, error.slice(0, MAX_ERROR), at],
    );
  },

  /** The contacts of these conversations wrote: their pending follow-ups are cancelled. */
  async cancelForInbound(tx: Queryable, conversationIds: readonly string[], at: Date): Promise<void> {
    await tx.query(
      `UPDATE messaging_follow_ups SET status = 'cancelled', last_error = 'the contact wrote again', updated_at = $2
        WHERE conversation_id = ANY($1::uuid[]) AND status = 'pending'`,
      [conversationIds, at],
    );
  },

  /** A rule changed: its pending follow-ups are cancelled (`reason`), or take its new message and delay. */
  async ruleChanged(
    tx: Queryable,
    rule: {
      id: string;
      delayHours: number;
      text: string | null;
      template: FollowUpTemplate | null;
    },
    cancelReason: string | null,
    at: Date,
  ): Promise<void> {
    if (cancelReason !== null) {
      await tx.query(
        `UPDATE messaging_follow_ups SET status = 'cancelled', last_error = $2, updated_at = $3
          WHERE rule_id = $1 AND status = 'pending'`,
        [rule.id, cancelReason, at],
      );
      return;
    }
    await tx.query(
      `UPDATE messaging_follow_ups
          SET due_at = basis_at + make_interval(hours => $2), text = $3, template_name = $4,
              template_language = $5, template_parameters = $6, updated_at = $7
        WHERE rule_id = $1 AND status = 'pending'`,
      [
        rule.id,
        rule.delayHours,
        rule.text,
        rule.template?.name ?? null,
        rule.template?.languageCode ?? null,
        rule.template?.parameters ?? [],
        at,
      ],
    );
  },

  /** A manual follow-up, due now; null when one is already pending for the conversation. */
  async insertManual(
    tx: Queryable,
    input: {
      conversationId: string;
      userId: string;
      text: string | null;
      template: FollowUpTemplate | null;
      at: Date;
    },
  ): Promise<FollowUpRow | null> {
    const { rows } = await tx.query<FollowUpRow>(
      `INSERT INTO messaging_follow_ups AS f (conversation_id, manual, requested_by, basis_at, due_at, text,
         template_name, template_language, template_parameters, created_at, updated_at)
       VALUES ($1, true, $2, $3, $3, $4, $5, $6, $7, $3, $3)
       ON CONFLICT DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        input.conversationId,
        input.userId,
        input.at,
        input.text,
        input.template?.name ?? null,
        input.template?.languageCode ?? null,
        input.template?.parameters ?? [],
      ],
    );
    return rows[0] ?? null;
  },

  /** The queue in the scope (`clusters` null: all), latest due first. */
  async list(
    db: Queryable,
    clusters: readonly string[] | null,
    filter: { status?: FollowUpStatus; conversationId?: string },
    limit: number,
  ): Promise<FollowUpRow[]> {
    const { rows } = await db.query<FollowUpRow>(
      `SELECT ${COLUMNS} FROM messaging_follow_ups f
         JOIN messaging_conversations c ON c.id = f.conversation_id
        WHERE ($1::uuid[] IS NULL OR c.cluster_id = ANY($1::uuid[]))
          AND ($2::text IS NULL OR f.status = $2) AND ($3::uuid IS NULL OR f.conversation_id = $3)
        ORDER BY f.due_at DESC, f.id DESC
        LIMIT $4`,
      [clusters, filter.status ?? null, filter.conversationId ?? null, limit],
    );
    return rows;
  },

  /** A follow-up in the scope. */
  async get(db: Queryable, id: string, clusters: readonly string[] | null): Promise<FollowUpRow | null> {
    const { rows } = await db.query<FollowUpRow>(
      `SELECT ${COLUMNS} FROM messaging_follow_ups f
         JOIN messaging_conversations c ON c.id = f.conversation_id
        WHERE f.id = $1 AND ($2::uuid[] IS NULL OR c.cluster_id = ANY($2::uuid[]))`,
      [id, clusters],
    );
    return rows[0] ?? null;
  },

  /** Cancels a pending follow-up in the scope; null when it is not pending (or not in the scope). */
  async cancel(
    db: Queryable,
    id: string,
    clusters: readonly string[] | null,
    at: Date,
  ): Promise<FollowUpRow | null> {
    const { rows } = await db.query<FollowUpRow>(
      `UPDATE messaging_follow_ups f SET status = 'cancelled', last_error = 'cancelled by staff', updated_at = $3
         FROM messaging_conversations c
        WHERE f.id = $1 AND c.id = f.conversation_id AND f.status = 'pending'
          AND ($2::uuid[] IS NULL OR c.cluster_id = ANY($2::uuid[]))
       RETURNING ${COLUMNS}`,
      [id, clusters, at],
    );
    return rows[0] ?? null;
  },
};
