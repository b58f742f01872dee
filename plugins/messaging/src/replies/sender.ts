import type { Clock, Database, Logger } from '../../../../gateway/src/plugin-api.ts';
import type { MessagingMetrics } from '../metrics.ts';
import { createSendApiClient, type SendOutcome } from './send-api.ts';

/** Retry delays of a failed send; the last one repeats. */
const SEND_RETRY_MS = [2_000, 10_000, 60_000, 300_000, 900_000];

interface Claimed {
  id: string;
  phoneNumberId: string;
  payload: Record<string, unknown>;
  sendAttempts: number;
}

/** A reply leased to this worker when it was written (effects-store), to send once its batch commits. */
export interface HandedOff extends Claimed {
  conversationId: string;
}

/** Direct sends in flight beyond which new replies are left to the claim (a slow send API holds them). */
const MAX_HANDED_OFF_IN_FLIGHT = 200;

/**
 * Sends queued replies through the provider's send API (DECISIONS.md: Graph-compatible at
 * MESSAGING_API_BASE_URL with MESSAGING_API_TOKEN; issue 6, point 6). Replies are rows in the outbox
 * (`messaging_messages`, outbound, `pending`): claimed with SKIP LOCKED under a lease (no transaction
 * is held across the HTTP call), sent in order per conversation, then marked `sent` with the provider's
 * message id (status webhooks later move them to delivered/read/failed). A failure is retried with
 * backoff, and after MESSAGING_SEND_MAX_ATTEMPTS the reply is `failed`. A process that dies mid-send
 * leaves the lease to run out and the reply is tried again: delivery to the provider is at least once.
 *
 * The common case skips the claim: the processing batch writes the replies of a conversation with nothing
 * pending already leased to this worker (`leaseUntil()`), and hands them over (`deliver`) once it has
 * committed; they are sent at once, one after another per conversation. A failure stops that
 * conversation's handed-over replies and gives the rest back to the claim, behind the failed one.
 *
 * Replies the processor left to the claim (`queued`) wake it at once. Those waiting behind a handed-over
 * send of their conversation wake it again when that send settles, so they do not wait for its next poll.
 */
export function createSender(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  metrics: MessagingMetrics;
  baseUrl: string;
  token: string | undefined;
  timeoutMs: number;
  /** How long a claimed or handed-over reply stays with this worker (longer than `timeoutMs`). */
  leaseMs: number;
  maxAttempts: number;
  /** Runs the claim now (the send loop's kick). */
  wakeClaim(): void;
}) {
  const leaseMs = deps.leaseMs;
  const inFlight = new Set<Promise<void>>();
  let handedOffInFlight = 0;
  /** Handed-over replies in flight per conversation. */
  const handedOffByConversation = new Map<string, number>();
  /** Conversations with replies left to the claim behind a handed-over send still in flight. */
  const waitingBehind = new Set<string>();

  /** A handed-over batch settled: its conversations' waiting replies can be claimed now. */
  const settled = (replies: readonly HandedOff[]) => {
    handedOffInFlight -= replies.length;
    let wake = false;
    for (const { conversationId } of replies) {
      const left = (handedOffByConversation.get(conversationId) ?? 1) - 1;
      if (left > 0) {
        handedOffByConversation.set(conversationId, left);
        continue;
      }
      handedOffByConversation.delete(conversationId);
      if (waitingBehind.delete(conversationId)) wake = true;
    }
    if (wake) deps.wakeClaim();
  };

  const claim = async (limit: number): Promise<Claimed[]> => {
    const now = deps.clock.now();
    const { rows } = await deps.db.query<Claimed>(
      `WITH due AS (
         SELECT m.id FROM messaging_messages m
          WHERE m.delivery_status = 'pending' AND m.next_send_at <= $1
            AND NOT EXISTS (
              SELECT 1 FROM messaging_messages e
               WHERE e.conversation_id = m.conversation_id AND e.delivery_status = 'pending' AND e.seq < m.seq)
          ORDER BY m.next_send_at, m.seq
          LIMIT $2
          FOR UPDATE OF m SKIP LOCKED
       )
       UPDATE messaging_messages m
          SET send_attempts = m.send_attempts + 1, next_send_at = $3
         FROM due, messaging_conversations c
        WHERE m.id = due.id AND c.id = m.conversation_id
       RETURNING m.id, c.phone_number_id AS "phoneNumberId", m.payload, m.send_attempts AS "sendAttempts"`,
      [now, limit, new Date(now.getTime() + leaseMs)],
    );
    return rows;
  };

  const api = createSendApiClient(deps);
  const send = (reply: Claimed): Promise<SendOutcome> => api.send(reply.phoneNumberId, reply.payload);

  /** Records a batch's outcomes: the sent ones in one statement, the others one by one (rare). */
  const record = async (results: Array<[Claimed, SendOutcome]>) => {
    const sent = results.filter((r): r is [Claimed, { providerId: string }] => 'providerId' in r[1]);
    if (sent.length > 0) {
      await deps.db.query(
        `UPDATE messaging_messages m
            SET delivery_status = 'sent', provider_message_id = u.provider_id, next_send_at = NULL, delivery_error = NULL
           FROM unnest($1::uuid[], $2::text[]) AS u(id, provider_id)
          WHERE m.id = u.id AND m.delivery_status = 'pending'`,
        [sent.map(([r]) => r.id), sent.map(([, o]) => o.providerId)],
      );
      for (let i = 0; i < sent.length; i++) deps.metrics.sent('sent');
    }
    for (const [reply, outcome] of results) {
      if (!('error' in outcome)) continue;
      const failed = reply.sendAttempts >= deps.maxAttempts;
      const delay = SEND_RETRY_MS[Math.min(reply.sendAttempts - 1, SEND_RETRY_MS.length - 1)] as number;
      await deps.db.query(
        `UPDATE messaging_messages SET delivery_status = $2, next_send_at = $3, delivery_error = $4
          WHERE id = $1 AND delivery_status = 'pending'`,
        [
          reply.id,
          failed ? 'failed' : 'pending',
          failed ? null : new Date(deps.clock.nowMs() + delay),
          outcome.error,
        ],
      );
      deps.metrics.sent(failed ? 'failed' : 'retry');
      deps.logger.warn(
        { messageId: reply.id, attempt: reply.sendAttempts, failed, error: outcome.error },
        'messaging: reply not sent',
      );
    }
  };

  /** Handed-over replies not tried (behind a failure): back to the claim, due now, the lease undone. */
  const release = async (ids: string[]) => {
    if (ids.length === 0) return;
    await deps.db.query(
      `UPDATE messaging_messages SET send_attempts = send_attempts - 1, next_send_at = $2
        WHERE id = ANY($1::uuid[]) AND delivery_status = 'pending'`,
      [ids, deps.clock.now()],
    );
  };

  /** Sends handed-over replies: conversations in parallel, each conversation's replies in order. */
  const sendHandedOff = async (replies: readonly HandedOff[]) => {
    const byConversation = new Map<string, HandedOff[]>();
    for (const reply of replies) {
      const list = byConversation.get(reply.conversationId);
      if (list) list.push(reply);
      else byConversation.set(reply.conversationId, [reply]);
    }
    const results: Array<[Claimed, SendOutcome]> = [];
    const untried: string[] = [];
    await Promise.all(
      [...byConversation.values()].map(async (list) => {
        for (let i = 0; i < list.length; i++) {
          const reply = list[i] as HandedOff;
          const outcome = await send(reply);
          results.push([reply, outcome]);
          if ('error' in outcome) {
            untried.push(...list.slice(i + 1).map((r) => r.id));
            break;
          }
        }
      }),
    );
    await record(results);
    await release(untried);
  };

  return {
    /** Whether new replies may be leased to this worker at write time (see `deliver`). */
    leaseUntil(): Date | null {
      return handedOffInFlight < MAX_HANDED_OFF_IN_FLIGHT ? new Date(deps.clock.nowMs() + leaseMs) : null;
    },

    /** Sends replies leased to this worker by a committed batch; failures are recorded, never thrown. */
    deliver(replies: readonly HandedOff[]): void {
      if (replies.length === 0) return;
      handedOffInFlight += replies.length;
      for (const { conversationId } of replies)
        handedOffByConversation.set(conversationId, (handedOffByConversation.get(conversationId) ?? 0) + 1);
      const task = sendHandedOff(replies)
        .catch((err: unknown) =>
          // The replies keep their lease: the claim takes them again once it runs out.
          deps.logger.warn({ err: { message: (err as Error).message } }, 'messaging: recording sends failed'),
        )
        .finally(() => {
          settled(replies);
          inFlight.delete(task);
        });
      inFlight.add(task);
    },

    /**
     * Replies of these conversations were left to the claim (others of theirs were pending): the claim
     * runs now, and again when a handed-over send they wait behind settles.
     */
    queued(conversationIds: Iterable<string>): void {
      for (const id of conversationIds) if (handedOffByConversation.has(id)) waitingBehind.add(id);
      deps.wakeClaim();
    },

    /** Waits for the handed-over sends in flight (shutdown). */
    async drain(): Promise<void> {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },

    /** Closes the kept-alive connections to the send API (after the last send). */
    close(): void {
      api.close();
    },

    /** Sends what is due; returns how many replies it tried. */
    async run(limit = 20): Promise<number> {
      const claimed = await claim(limit);
      if (claimed.length === 0) return 0;
      const results = await Promise.all(claimed.map(async (reply) => [reply, await send(reply)] as const));
      await record(results.map(([reply, outcome]) => [reply, outcome]));
      return claimed.length;
    },
  };
}
