import type { Clock } from '../../../../gateway/src/clock.ts';
import type { Database } from '../../../../gateway/src/db/database.ts';
import type { Logger } from '../../../../gateway/src/logger.ts';
import type { MessagingMetrics } from '../metrics.ts';

/** Retry delays of a failed send; the last one repeats. */
const SEND_RETRY_MS = [2_000, 10_000, 60_000, 300_000, 900_000];

interface Claimed {
  id: string;
  phoneNumberId: string;
  payload: Record<string, unknown>;
  sendAttempts: number;
}

/**
 * Sends queued replies through the provider's send API (DECISIONS.md: Graph-compatible at
 * MESSAGING_API_BASE_URL with MESSAGING_API_TOKEN; issue 6, point 6). Replies are rows in the outbox
 * (`messaging_messages`, outbound, `pending`): claimed with SKIP LOCKED under a lease (no transaction
 * is held across the HTTP call), sent in order per conversation, then marked `sent` with the provider's
 * message id (status webhooks later move them to delivered/read/failed). A failure is retried with
 * backoff, and after MESSAGING_SEND_MAX_ATTEMPTS the reply is `failed`. A process that dies mid-send
 * leaves the lease to run out and the reply is tried again: delivery to the provider is at least once.
 */
export function createSender(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  metrics: MessagingMetrics;
  baseUrl: string;
  token: string | undefined;
  timeoutMs: number;
  maxAttempts: number;
}) {
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
      [now, limit, new Date(now.getTime() + deps.timeoutMs + 60_000)],
    );
    return rows;
  };

  /** One HTTP call; the provider's message id, or why there is none. */
  const send = async (reply: Claimed): Promise<{ providerId: string } | { error: string }> => {
    try {
      const res = await fetch(
        `${deps.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(reply.phoneNumberId)}/messages`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(deps.token ? { authorization: `Bearer ${deps.token}` } : {}),
          },
          body: JSON.stringify(reply.payload),
          signal: AbortSignal.timeout(deps.timeoutMs),
          redirect: 'manual',
        },
      );
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        return { error: `send API answered ${res.status}` };
      }
      const body = (await res.json().catch(() => null)) as { messages?: Array<{ id?: unknown }> } | null;
      const id = body?.messages?.[0]?.id;
      return typeof id === 'string'
        ? { providerId: id }
        : { error: 'send API answered without a message id' };
    } catch (err) {
      const name = (err as Error).name;
      return {
        error:
          name === 'TimeoutError' ? 'send API timed out' : `send API unreachable: ${(err as Error).message}`,
      };
    }
  };

  /** Records a batch's outcomes: the sent ones in one statement, the others one by one (rare). */
  const record = async (results: Array<[Claimed, { providerId: string } | { error: string }]>) => {
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

  return {
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
