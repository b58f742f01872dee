import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/**
 * messaging_message_feedback (migrations/messaging/0002): staff feedback on the bot's replies, one row per
 * (message, staff member). Every statement is limited to the caller's clusters in SQL (`clusters`: null for
 * an admin, else the clusters whose conversations they see; README, "Staff API", "Who sees what").
 */

export interface FeedbackRow {
  message_id: string;
  user_id: string;
  rating: 'up' | 'down' | null;
  corrected_intent: string | null;
  corrected_answer: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface FeedbackListRow extends FeedbackRow {
  /** created_at in microseconds since the epoch: the exact sort key for the cursor. */
  position: string;
  conversation_id: string;
  cluster_id: string | null;
  language: 'id' | 'en';
  reply_text: string | null;
  template: string;
  reply_at: Date;
  inbound_id: string | null;
  inbound_text: string | null;
  inbound_intent: string | null;
  inbound_tier: number | null;
}

export interface FeedbackWrite {
  messageId: string;
  userId: string;
  rating: 'up' | 'down' | null;
  correctIntent: string | null;
  correctAnswer: string | null;
}

export interface FeedbackListFilter {
  rating?: 'up' | 'down';
  hasCorrection?: boolean;
  /** Rows strictly after this (created_at µs, message id, user id) in the list's order. */
  after?: readonly [number, string, string];
  limit: number;
}

export interface GoldSetRow {
  text: string;
  intent: string;
  lang: string;
}

/** A bot reply: outbound, written by no staff member, rendered from a reply template. */
const BOT_REPLY = `m.direction = 'outbound' AND m.author_user_id IS NULL AND m.template IS NOT NULL`;

const COLUMNS = `f.message_id, f.user_id, f.rating, f.corrected_intent, f.corrected_answer, f.created_at,
  f.updated_at`;

/** `AND c.cluster_id = ANY($n)` for an agent (pushing the value), nothing for an admin. */
function scopeClause(clusters: readonly string[] | null, values: unknown[]): string {
  if (clusters === null) return '';
  values.push(clusters);
  return ` AND c.cluster_id = ANY($${values.length}::uuid[])`;
}

export const feedbackStore = {
  /** The message if the caller sees it: whether it is a bot reply; null when absent or out of scope. */
  async findMessage(
    db: Queryable,
    messageId: string,
    clusters: readonly string[] | null,
  ): Promise<{ botReply: boolean } | null> {
    const values: unknown[] = [messageId];
    const scope = scopeClause(clusters, values);
    const { rows } = await db.query<{ bot_reply: boolean }>(
      `SELECT (${BOT_REPLY}) AS bot_reply
         FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE m.id = $1${scope}`,
      values,
    );
    const row = rows[0];
    return row ? { botReply: row.bot_reply } : null;
  },

  /**
   * Writes the caller's feedback on a bot reply they see, in one statement: the scope and bot-reply checks
   * and the upsert on the primary key cannot be separated by a concurrent write, and concurrent PUTs of
   * one staff member leave one row (the last to commit). Null when the message is not such a reply.
   */
  async upsert(
    db: Queryable,
    write: FeedbackWrite,
    clusters: readonly string[] | null,
    now: Date,
  ): Promise<{ row: FeedbackRow; created: boolean } | null> {
    const values: unknown[] = [
      write.messageId,
      write.userId,
      write.rating,
      write.correctIntent,
      write.correctAnswer,
      now,
    ];
    const scope = scopeClause(clusters, values);
    const { rows } = await db.query<FeedbackRow & { created: boolean }>(
      `INSERT INTO messaging_message_feedback AS f
         (message_id, user_id, rating, corrected_intent, corrected_answer, created_at, updated_at)
       SELECT m.id, $2, $3, $4, $5, $6, $6
         FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE m.id = $1 AND ${BOT_REPLY}${scope}
       ON CONFLICT (message_id, user_id) DO UPDATE
         SET rating = EXCLUDED.rating, corrected_intent = EXCLUDED.corrected_intent,
             corrected_answer = EXCLUDED.corrected_answer, updated_at = EXCLUDED.updated_at
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      values,
    );
    const row = rows[0];
    if (!row) return null;
    const { created, ...feedback } = row;
    return { row: feedback, created };
  },

  /** Every staff member's feedback on one message, newest first (the caller checked the scope). */
  async forMessage(db: Queryable, messageId: string): Promise<FeedbackRow[]> {
    const { rows } = await db.query<FeedbackRow>(
      `SELECT ${COLUMNS} FROM messaging_message_feedback f
        WHERE f.message_id = $1 ORDER BY f.updated_at DESC, f.user_id`,
      [messageId],
    );
    return rows;
  },

  /** Removes one staff member's feedback on a message (the caller checked the scope). */
  async remove(db: Queryable, messageId: string, userId: string): Promise<void> {
    await db.query('DELETE FROM messaging_message_feedback WHERE message_id = $1 AND user_id = $2', [
      messageId,
      userId,
    ]);
  },

  /**
   * One page of the feedback the caller sees, newest first by creation, ties broken by message and staff
   * member: a keyset walk over the creation index. Creation, not the last update, orders it: an update
   * during a walk must not move a row the walk has not reached behind its cursor.
   */
  async page(
    db: Queryable,
    filter: FeedbackListFilter,
    clusters: readonly string[] | null,
  ): Promise<FeedbackListRow[]> {
    const values: unknown[] = [filter.limit];
    let where = scopeClause(clusters, values);
    if (filter.rating !== undefined) {
      values.push(filter.rating);
      where += ` AND f.rating = $${values.length}`;
    }
    if (filter.hasCorrection !== undefined) {
      const corrected = '(f.corrected_intent IS NOT NULL OR f.corrected_answer IS NOT NULL)';
      where += filter.hasCorrection ? ` AND ${corrected}` : ` AND NOT ${corrected}`;
    }
    if (filter.after) {
      values.push(...filter.after);
      const n = values.length;
      where +=
        ` AND (f.created_at, f.message_id, f.user_id) <` +
        ` (timestamptz 'epoch' + $${n - 2}::bigint * interval '1 microsecond', $${n - 1}::uuid, $${n}::text)`;
    }
    const { rows } = await db.query<FeedbackListRow>(
      `SELECT ${COLUMNS}, (extract(epoch FROM f.created_at) * 1000000)::bigint::text AS position,
              m.conversation_id, c.cluster_id, c.language, m.text AS reply_text, m.template,
              m.created_at AS reply_at, i.id AS inbound_id, i.text AS inbound_text, i.intent AS inbound_intent,
              i.tier AS inbound_tier
         FROM messaging_message_feedback f
         JOIN messaging_messages m ON m.id = f.message_id
         JOIN messaging_conversations c ON c.id = m.conversation_id
         LEFT JOIN messaging_messages i ON i.id = m.in_reply_to
        WHERE true${where}
        ORDER BY f.created_at DESC, f.message_id DESC, f.user_id DESC
        LIMIT $1`,
      values,
    );
    return rows;
  },

  /**
   * One batch of the gold-set export: distinct (customer text, corrected intent) pairs of the feedback the
   * caller sees, in byte order of (text, intent), after `after`. Only intents in `intents` (the ones the
   * classifier knows now) and customer messages with some text (not only spaces). A text seen in both languages takes the first.
   */
  async goldSetBatch(
    db: Queryable,
    options: {
      intents: readonly string[];
      after: readonly [string, string] | null;
      limit: number;
    },
    clusters: readonly string[] | null,
  ): Promise<GoldSetRow[]> {
    const values: unknown[] = [options.intents, options.limit];
    let where = scopeClause(clusters, values);
    if (options.after) {
      values.push(...options.after);
      const n = values.length;
      where += ` AND (i.text COLLATE "C", f.corrected_intent COLLATE "C") > ($${n - 1}::text, $${n}::text)`;
    }
    const { rows } = await db.query<GoldSetRow>(
      `SELECT i.text COLLATE "C" AS text, f.corrected_intent COLLATE "C" AS intent, min(c.language) AS lang
         FROM messaging_message_feedback f
         JOIN messaging_messages m ON m.id = f.message_id
         JOIN messaging_messages i ON i.id = m.in_reply_to
         JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE f.corrected_intent = ANY($1::text[]) AND btrim(i.text) <> ''${where}
        GROUP BY 1, 2
        ORDER BY 1, 2
        LIMIT $2`,
      values,
    );
    return rows;
  },
};
