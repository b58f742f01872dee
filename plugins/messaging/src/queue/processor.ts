import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock, Database, Logger } from '../../../../gateway/src/plugin-api.ts';
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
import type { HandedOff } from '../replies/sender.ts';
import { effectsStore, type MessageEffects, type QueuedReply } from '../store/effects-store.ts';

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

/** The next message of a conversation, with what processing it needs to know. */
interface Head {
  id: string;
  conversationId: string;
  type: string;
  text: string | null;
  contactName: string | null;
  providerTimestamp: Date | null;
  attempts: number;
  phoneNumberId: string;
  contactPhone: string | null;
  contactUserId: string | null;
  capture: CaptureSession;
  defaultAnswersInARow: number;
  language: Language;
  lead: { name: string | null; email: string | null; phone: string | null; status: string | null };
}

/**
 * The processing queue (issue 6, point 2). A batch takes the next message of up to `batchSize`
 * conversations (never two of one conversation: the messages of a conversation are processed one at a
 * time, in provider timestamp order), each conversation held by a transaction-scoped advisory lock taken
 * with try, so other workers and replicas skip it instead of waiting. The messages are classified and
 * stepped through the conversation engine concurrently; then all their effects — the lead upserts,
 * escalation notifications, replies queued in the outbox, conversation state, and each message's
 * `processed` mark — are written with one statement per kind and committed together. A crash or a
 * restart therefore never loses a message and never processes one twice.
 *
 * Every attempt is counted before it starts, in its own statement, so a message that crashes the process
 * is dead-lettered after MESSAGING_MAX_ATTEMPTS like one that throws. A message that fails waits for its
 * retry and holds back the later messages of its conversation (order first); a dead one no longer does.
 * If a batch's writes fail, its messages are retried one per transaction, so one bad message cannot
 * block the others.
 */
export function createProcessor(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  metrics: MessagingMetrics;
  ports: ProcessingPorts;
  rules: readonly EscalationRule[];
  maxAttempts: number;
  batchSize: number;
  /** The sender: leases replies at write time and sends them once the batch commits. */
  replies: { leaseUntil(): Date | null; deliver(replies: readonly HandedOff[]): void };
  /** Replies of these conversations were queued for the sender's claim (others of theirs were pending). */
  onRepliesQueued(conversationIds: ReadonlySet<string>): void;
}) {
  /** What one message does, computed without writing anything. */
  const decide = async (head: Head, now: Date): Promise<MessageEffects> => {
    const classification = await deps.ports.classify(head.text);
    const output = await deps.ports.step({
      text: head.text,
      messageType: head.type,
      classification,
      session: head.capture,
      lead: {
        name: head.lead.name ?? undefined,
        email: head.lead.email ?? undefined,
        phone: head.lead.phone ?? undefined,
      },
      // The sender's WhatsApp number stays on the conversation; a lead's phone is one the contact gives.
      senderPhone: null,
      defaultAnswersInARow: head.defaultAnswersInARow,
      language: head.language,
      now,
    });
    const patch = output.leadPatch;
    const hasPatch = patch.name !== undefined || patch.email !== undefined || patch.phone !== undefined;
    const merged = {
      name: patch.name ?? head.lead.name,
      email: patch.email ?? head.lead.email,
      phone: patch.phone ?? head.lead.phone,
    };
    const leadAfter = hasPatch ? leadStatus(merged) : head.lead.status;
    const defaultStreak = classification.tier === 4 ? head.defaultAnswersInARow + 1 : 0;
    const notifications = firingRules(deps.rules, {
      intent: classification.intent,
      handlerEscalation: output.result.escalation?.reason ?? null,
      leadBefore: head.lead.status,
      leadAfter,
      defaultAnswersInARow: defaultStreak,
    }).map((rule) => ({
      scopes: rule.notify,
      eventKey: `${rule.id}:${head.conversationId}`,
      kind: rule.kind,
      payload: { rule: rule.id, intent: classification.intent, messageId: head.id, lead: leadAfter },
    }));
    if (output.result.notifyAdmin) {
      notifications.push({
        scopes: ['global'],
        eventKey: `${output.result.notifyAdmin.eventKey}:${head.conversationId}`,
        kind: 'admin.notice',
        payload: { rule: 'notify_admin', intent: classification.intent, messageId: head.id, lead: leadAfter },
      });
    }
    return {
      messageId: head.id,
      conversationId: head.conversationId,
      classification,
      leadPatch: hasPatch
        ? { name: patch.name ?? null, email: patch.email ?? null, phone: patch.phone ?? null }
        : null,
      notifications,
      replies: output.replies.map((reply) => {
        const body = deps.ports.render(reply, output.language);
        return { template: reply.template, body, payload: outboundPayload(head, body) };
      }),
      session: output.session,
      language: output.language,
      defaultStreak,
      contactName: head.contactName,
    };
  };

  /**
   * Records a failed attempt. The retry is due a delay after the attempt began (`startedMs`), not after the
   * failure was noticed: the attempt is visible as counted from its start, so the time it is next due must
   * not depend on how long the failing work took.
   */
  const fail = async (head: Head, err: unknown, startedMs: number) => {
    const now = deps.clock.nowMs();
    const dead = head.attempts + 1 >= deps.maxAttempts;
    const delay = RETRY_DELAYS_MS[Math.min(head.attempts, RETRY_DELAYS_MS.length - 1)] as number;
    await deps.db.query(
      `UPDATE messaging_messages SET processing_status = $2, next_attempt_at = $3, last_error = $4
        WHERE id = $1 AND processing_status = 'queued'`,
      [
        head.id,
        dead ? 'dead' : 'queued',
        dead ? null : new Date(startedMs + delay),
        String((err as Error).message).slice(0, 500),
      ],
    );
    deps.logger.warn(
      { messageId: head.id, attempt: head.attempts + 1, dead, err: { message: (err as Error).message } },
      dead ? 'messaging: message dead-lettered' : 'messaging: processing failed; will retry',
    );
    deps.metrics.processed(dead ? 'dead' : 'retry', latency(head, now));
  };

  /** One batch; returns how many messages it processed. */
  async function processBatch(): Promise<number> {
    const client = await deps.db.pool.connect();
    let processed = 0;
    const queued: QueuedReply[] = [];
    let phoneNumberIds = new Map<string, string>();
    try {
      await client.query('BEGIN');
      const now = deps.clock.now();
      const heads = (
        await client.query<Head>(
          `WITH oldest AS (
             -- The oldest queued messages: a bounded window of narrow rows, so a batch costs the same
             -- whatever the backlog (the message bodies are read only for the heads chosen).
             SELECT m.id, m.conversation_id, m.provider_timestamp, m.attempts, m.next_attempt_at, m.seq
               FROM messaging_messages m
              WHERE m.processing_status = 'queued'
              ORDER BY m.seq LIMIT $2 * 4
           ), heads AS (
             SELECT DISTINCT ON (o.conversation_id) o.* FROM oldest o
              ORDER BY o.conversation_id, o.provider_timestamp, o.seq
           ), due AS (
             -- A window's first message of a conversation is its head only if no earlier one (by provider
             -- timestamp) arrived later, outside the window.
             SELECT h.* FROM heads h
              WHERE h.next_attempt_at <= $1
                AND NOT EXISTS (
                  SELECT 1 FROM messaging_messages e
                   WHERE e.conversation_id = h.conversation_id AND e.processing_status = 'queued'
                     AND (e.provider_timestamp, e.seq) < (h.provider_timestamp, h.seq))
              ORDER BY h.seq LIMIT $2
           )
           SELECT d.id, d.conversation_id AS "conversationId", m.type, m.text,
                  m.payload->'contact'->>'name' AS "contactName", d.provider_timestamp AS "providerTimestamp",
                  d.attempts, c.phone_number_id AS "phoneNumberId", c.contact_phone AS "contactPhone",
                  c.contact_user_id AS "contactUserId", c.capture, c.default_answers_in_a_row AS "defaultAnswersInARow", c.language,
                  json_build_object('name', l.name, 'email', l.email, 'phone', l.phone, 'status', l.status) AS lead
             FROM due d
             JOIN messaging_messages m ON m.id = d.id
             JOIN messaging_conversations c ON c.id = d.conversation_id
             LEFT JOIN messaging_leads l ON l.conversation_id = d.conversation_id
            WHERE pg_try_advisory_xact_lock($3, hashtext(d.conversation_id::text))`,
          [now, deps.batchSize, LOCK_NAMESPACE],
        )
      ).rows;
      if (heads.length === 0) {
        await client.query('COMMIT');
        return 0;
      }
      phoneNumberIds = new Map(heads.map((h) => [h.conversationId, h.phoneNumberId]));
      // Counted before the work, committed on its own: a crash mid-work still counts as an attempt.
      await deps.db.query(
        'UPDATE messaging_messages SET attempts = attempts + 1 WHERE id = ANY($1::uuid[])',
        [heads.map((h) => h.id)],
      );
      const outcomes = await settleEachOnItsOwnTurn(heads, (head) => decide(head, now));
      const done: MessageEffects[] = [];
      const failed: Array<[Head, unknown]> = [];
      outcomes.forEach((outcome, i) => {
        if (outcome.status === 'fulfilled') done.push(outcome.value);
        else failed.push([heads[i] as Head, outcome.reason]);
      });
      const leaseUntil = deps.replies.leaseUntil();
      try {
        const written = await effectsStore.write(client, done, now, leaseUntil);
        await client.query('COMMIT');
        processed = done.length;
        queued.push(...written);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (done.length === 1) failed.push([heads.find((h) => h.id === done[0]?.messageId) as Head, err]);
        else {
          // Isolate the culprit: each message on its own (the attempt already counted stays counted).
          deps.logger.warn(
            { err: { message: (err as Error).message }, batch: done.length },
            'messaging: batch write failed; retrying one by one',
          );
          for (const one of done) {
            try {
              queued.push(
                ...(await deps.db.transaction((tx) => effectsStore.write(tx, [one], now, leaseUntil))),
              );
              processed++;
            } catch (oneErr) {
              failed.push([heads.find((h) => h.id === one.messageId) as Head, oneErr]);
            }
          }
        }
      }
      for (const [head, err] of failed) await fail(head, err, now.getTime());
      const end = deps.clock.nowMs();
      for (const head of heads)
        if (!failed.some(([h]) => h === head)) deps.metrics.processed('processed', latency(head, end));
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    deps.replies.deliver(
      queued
        .filter((reply) => reply.leased)
        .map((reply) => ({
          id: reply.id,
          conversationId: reply.conversationId,
          phoneNumberId: phoneNumberIds.get(reply.conversationId) as string,
          payload: reply.payload,
          sendAttempts: 1,
        })),
    );
    const waiting = new Set(queued.filter((reply) => !reply.leased).map((reply) => reply.conversationId));
    if (waiting.size > 0) deps.onRepliesQueued(waiting);
    return processed;
  }

  return { processBatch };
}

/**
 * Starts `work` for each item on a turn of the event loop of its own and settles them all, like
 * `Promise.allSettled(items.map(work))`. The synchronous part of processing a message (classifier tiers
 * 1–2, extraction) then runs between two turns, where the gateway answers requests that arrived
 * meanwhile, instead of a whole batch of it in one stretch (see ../../README.md, "Bounded work per
 * message"). The asynchronous parts (model calls) still overlap.
 */
async function settleEachOnItsOwnTurn<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<Array<PromiseSettledResult<R>>> {
  const settling: Array<Promise<PromiseSettledResult<R>>> = [];
  for (const item of items) {
    await nextTurn();
    // The outcome is handled as soon as the work starts, so a failure is never an unhandled rejection.
    settling.push(
      work(item).then(
        (value) => ({ status: 'fulfilled', value }),
        (reason: unknown) => ({ status: 'rejected', reason }),
      ),
    );
  }
  return Promise.all(settling);
}

/** DECISIONS.md, "Lead status" (the same rule the upsert applies in SQL). */
function leadStatus(lead: { name: string | null; email: string | null; phone: string | null }): string {
  if (lead.name === null || lead.email === null) return 'incomplete';
  return lead.phone === null ? 'captured' : 'qualified';
}

function latency(head: Head, nowMs: number): number {
  return Math.max(0, nowMs - (head.providerTimestamp?.getTime() ?? nowMs)) / 1000;
}

export type Processor = ReturnType<typeof createProcessor>;
