import type pg from 'pg';
import type { Clock } from '../../../../gateway/src/clock.ts';
import type { Database } from '../../../../gateway/src/db/database.ts';
import type { Logger } from '../../../../gateway/src/logger.ts';
import type { Classification } from '../classifier/types.ts';
import type {
  CaptureSession,
  ConversationInput,
  ConversationOutput,
  Language,
  Reply,
} from '../conversation/types.ts';
import { firingRules, type EscalationRule } from '../escalation/rules.ts';
import type { MessagingMetrics } from '../metrics.ts';
import { outboundPayload } from '../replies/outbound.ts';
import { leadStore } from '../store/lead-store.ts';
import { notificationStore } from '../store/notification-store.ts';

/** The pieces processing needs from the classifier and the conversation engine. */
export interface ProcessingPorts {
  classify(text: string | null): Promise<Classification>;
  step(input: ConversationInput): Promise<ConversationOutput>;
  render(reply: Reply, language: Language): string;
}

/** Advisory-lock namespace of "a worker is processing this conversation" (any constant int4). */
const LOCK_NAMESPACE = 0x6d7367; // 'msg'
/** Retry delays after a failed processing attempt; the last one repeats. */
const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000];

interface QueuedMessage {
  id: string;
  type: string;
  text: string | null;
  payload: { contact?: { name?: string | null } };
  providerTimestamp: Date | null;
  attempts: number;
  nextAttemptAt: Date;
}

interface ConversationRow {
  id: string;
  phoneNumberId: string;
  contactPhone: string | null;
  contactUserId: string | null;
  capture: CaptureSession;
  defaultAnswersInARow: number;
}

/**
 * Processes the queued inbound messages of one conversation, one at a time, in provider timestamp order
 * (issue 6, point 2). Each message is one transaction: classification, the conversation engine's step,
 * the lead upsert, escalation notifications, the replies (queued in the outbox) and the message's
 * `processed` mark commit together, or not at all, so a crash or a restart never processes a message
 * twice and never loses one. Only one worker works on a conversation at a time (a transaction-scoped
 * advisory lock taken with try: other workers skip the conversation instead of waiting).
 *
 * Every attempt is counted before it starts, in its own statement: a message that crashes the process
 * is dead-lettered after MESSAGING_MAX_ATTEMPTS like one that throws. A message waiting for its retry
 * holds back the later messages of its conversation (order first); a dead one no longer does.
 */
export function createProcessor(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  metrics: MessagingMetrics;
  ports: ProcessingPorts;
  rules: readonly EscalationRule[];
  maxAttempts: number;
  onRepliesQueued(): void;
}) {
  const processOne = async (
    tx: pg.PoolClient,
    conversation: ConversationRow,
    message: QueuedMessage,
    now: Date,
  ) => {
    const lead = await leadStore.find(tx, conversation.id);
    const classification = await deps.ports.classify(message.text);
    const output = await deps.ports.step({
      text: message.text,
      messageType: message.type,
      classification,
      session: conversation.capture,
      lead: {
        name: lead?.name ?? undefined,
        email: lead?.email ?? undefined,
        phone: lead?.phone ?? undefined,
      },
      // The sender's WhatsApp number stays on the conversation; a lead's phone is one the contact gives.
      senderPhone: null,
      defaultAnswersInARow: conversation.defaultAnswersInARow,
      now,
    });
    const defaultStreak = classification.tier === 4 ? conversation.defaultAnswersInARow + 1 : 0;

    let leadBefore = lead?.status ?? null;
    let leadAfter = leadBefore;
    if (Object.values(output.leadPatch).some((value) => value !== undefined)) {
      const upserted = await leadStore.upsert(tx, conversation.id, output.leadPatch, now);
      leadBefore = upserted.before;
      leadAfter = upserted.lead.status;
    }

    for (const rule of firingRules(deps.rules, {
      intent: classification.intent,
      handlerEscalation: output.result.escalation?.reason ?? null,
      leadBefore,
      leadAfter,
      defaultAnswersInARow: defaultStreak,
    })) {
      await notificationStore.notify(tx, {
        conversationId: conversation.id,
        scopes: rule.notify,
        eventKey: `${rule.id}:${conversation.id}`,
        kind: rule.kind,
        payload: { rule: rule.id, intent: classification.intent, messageId: message.id, lead: leadAfter },
        at: now,
      });
    }
    if (output.result.notifyAdmin) {
      await notificationStore.notify(tx, {
        conversationId: conversation.id,
        scopes: ['global'],
        eventKey: `${output.result.notifyAdmin.eventKey}:${conversation.id}`,
        kind: 'admin.notice',
        payload: { message: output.result.notifyAdmin.message, messageId: message.id },
        at: now,
      });
    }

    for (const reply of output.replies) {
      const body = deps.ports.render(reply, output.language);
      await tx.query(
        `INSERT INTO messaging_messages
           (conversation_id, direction, type, text, payload, created_at, delivery_status, template, in_reply_to,
            next_send_at)
         VALUES ($1, 'outbound', 'text', $2, $3, $4, 'pending', $5, $6, $4)`,
        [
          conversation.id,
          body,
          JSON.stringify(outboundPayload(conversation, body)),
          now,
          reply.template,
          message.id,
        ],
      );
    }

    await tx.query(
      `UPDATE messaging_messages
          SET processing_status = 'processed', processed_at = $2, tier = $3, intent = $4, score = $5, margin = $6,
              next_attempt_at = NULL, last_error = NULL
        WHERE id = $1`,
      [
        message.id,
        now,
        classification.tier,
        classification.intent,
        classification.score,
        classification.margin,
      ],
    );
    await tx.query(
      `UPDATE messaging_conversations
          SET capture = $2, language = $3, default_answers_in_a_row = $4,
              contact_name = COALESCE($5, contact_name), last_inbound_at = $6, updated_at = $6
        WHERE id = $1`,
      [
        conversation.id,
        JSON.stringify(output.session),
        output.language,
        defaultStreak,
        message.payload.contact?.name ?? null,
        now,
      ],
    );
    deps.metrics.classified(classification.tier, classification.intent);
    return output.replies.length;
  };

  const fail = async (message: QueuedMessage, err: unknown) => {
    const now = deps.clock.nowMs();
    const dead = message.attempts + 1 >= deps.maxAttempts;
    const delay = RETRY_DELAYS_MS[Math.min(message.attempts, RETRY_DELAYS_MS.length - 1)] as number;
    await deps.db.query(
      `UPDATE messaging_messages
          SET processing_status = $2, next_attempt_at = $3, last_error = $4
        WHERE id = $1 AND processing_status = 'queued'`,
      [
        message.id,
        dead ? 'dead' : 'queued',
        dead ? null : new Date(now + delay),
        String((err as Error).message).slice(0, 500),
      ],
    );
    deps.logger.warn(
      {
        messageId: message.id,
        attempt: message.attempts + 1,
        dead,
        err: { message: (err as Error).message },
      },
      dead ? 'messaging: message dead-lettered' : 'messaging: processing failed; will retry',
    );
    deps.metrics.processed(dead ? 'dead' : 'retry', latency(message, now));
  };

  /** Processes the conversation's due messages in order; returns how many it processed. */
  async function processConversation(conversationId: string): Promise<number> {
    const client = await deps.db.pool.connect();
    let processed = 0;
    let replies = 0;
    try {
      for (;;) {
        await client.query('BEGIN');
        const { rows: lock } = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked',
          [LOCK_NAMESPACE, conversationId],
        );
        if (!lock[0]?.locked) {
          await client.query('ROLLBACK');
          break;
        }
        const message = (
          await client.query<QueuedMessage>(
            `SELECT id, type, text, payload, provider_timestamp AS "providerTimestamp", attempts,
                    next_attempt_at AS "nextAttemptAt"
               FROM messaging_messages
              WHERE conversation_id = $1 AND processing_status = 'queued'
              ORDER BY provider_timestamp, seq LIMIT 1`,
            [conversationId],
          )
        ).rows[0];
        const now = deps.clock.now();
        if (!message || message.nextAttemptAt.getTime() > now.getTime()) {
          await client.query('COMMIT');
          break;
        }
        // Counted before the work, committed on its own: a crash mid-work still counts as an attempt.
        await deps.db.query('UPDATE messaging_messages SET attempts = attempts + 1 WHERE id = $1', [
          message.id,
        ]);
        try {
          const conversation = (
            await client.query<ConversationRow>(
              `SELECT id, phone_number_id AS "phoneNumberId", contact_phone AS "contactPhone",
                      contact_user_id AS "contactUserId", capture, default_answers_in_a_row AS "defaultAnswersInARow"
                 FROM messaging_conversations WHERE id = $1`,
              [conversationId],
            )
          ).rows[0] as ConversationRow;
          replies += await processOne(client, conversation, message, now);
          await client.query('COMMIT');
          processed++;
          deps.metrics.processed('processed', latency(message, deps.clock.nowMs()));
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          await fail(message, err);
          break;
        }
      }
    } finally {
      client.release();
    }
    if (replies > 0) deps.onRepliesQueued();
    return processed;
  }

  return { processConversation };
}

function latency(message: QueuedMessage, nowMs: number): number {
  return Math.max(0, nowMs - (message.providerTimestamp?.getTime() ?? nowMs)) / 1000;
}

export type Processor = ReturnType<typeof createProcessor>;
