import { timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { MessagingEnv } from '../config.ts';
import { messagingErrors } from '../errors.ts';
import type { MessagingMetrics } from '../metrics.ts';
import { ingestStore } from '../store/ingest-store.ts';
import { createIngestBatcher } from './ingest-batcher.ts';
import { parseNotification, type Rejection } from './notification.ts';
import { verifyHubSignature } from './signature.ts';

/** Rejected items listed in an answer at most (`rejectedCount` has them all). */
const MAX_REPORTED = 100;

/**
 * The provider webhook (document 002: exempt; DECISIONS.md, "Provider format" and "Durability", binding).
 * `GET` answers the subscription challenge; `POST` persists every valid message of the notification in one
 * transaction before answering 200, then wakes the processing queue. A duplicate delivery changes nothing.
 * The answer says what was stored and which items were rejected (README, "Bad bytes in a notification").
 */
export function registerWebhookRoutes(
  ctx: PluginContext<MessagingEnv>,
  deps: { metrics: MessagingMetrics; messagesQueued(): void },
): void {
  const verifyToken = ctx.config.WEBHOOK_VERIFY_TOKEN;
  const batcher = createIngestBatcher((messages) =>
    ingestStore.insertInbound(ctx.db.pool, messages, ctx.clock.now()),
  );

  ctx.routes.add({
    method: 'GET',
    path: '/webhook/chat',
    exempt: true,
    handler: (req, res) => {
      const query = req.query as Record<string, unknown>;
      const token = typeof query['hub.verify_token'] === 'string' ? query['hub.verify_token'] : '';
      const challenge = typeof query['hub.challenge'] === 'string' ? query['hub.challenge'] : '';
      if (query['hub.mode'] !== 'subscribe' || !verifyToken || !sameSecret(token, verifyToken)) {
        throw messagingErrors.create('messaging.webhook.verification_failed');
      }
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end(challenge);
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/webhook/chat',
    exempt: true,
    // One bad message must not refuse the whole notification (the provider would retry it for days): the
    // webhook makes free text storable and rejects bad messages one by one itself (README, "Bad bytes in a
    // notification"), so the core's whole-request text guard stands aside here.
    checkText: false,
    handler: async (req, res) => {
      const started = performance.now();
      const secret = ctx.config.WEBHOOK_APP_SECRET;
      if (secret) {
        const header = req.headers['x-hub-signature-256'];
        if (!verifyHubSignature(secret, typeof header === 'string' ? header : undefined, req.rawBody)) {
          throw messagingErrors.create('messaging.webhook.signature_invalid');
        }
      }
      const parsed = parseNotification(req.body);
      if (!parsed.ok) {
        throw messagingErrors.create('messaging.webhook.payload_invalid', {
          detail: `${parsed.issues.length} problem${parsed.issues.length === 1 ? '' : 's'} with the notification`,
          extensions: { errors: parsed.issues.slice(0, 50) },
        });
      }
      let stored = 0;
      if (parsed.statuses.length === 0) {
        // The usual notification: its messages join the next group-committed write.
        if (parsed.messages.length > 0) stored = (await batcher.submit(parsed.messages)).size;
      } else {
        stored = await ctx.db.transaction(async (tx) => {
          const ids =
            parsed.messages.length > 0
              ? await ingestStore.insertInbound(tx, parsed.messages, ctx.clock.now())
              : new Set<string>();
          for (const status of parsed.statuses) await ingestStore.applyStatus(tx, status);
          return ids.size;
        });
      }
      if (parsed.rejected.length > 0) reportRejected(ctx, deps.metrics, parsed.rejected, req.gatehouse.id);
      deps.metrics.webhookAck((performance.now() - started) / 1000);
      if (stored > 0) deps.messagesQueued();
      res.json({
        received: parsed.received.messages,
        stored,
        statuses: parsed.received.statuses,
        rejectedCount: parsed.rejected.length,
        rejected: parsed.rejected.slice(0, MAX_REPORTED),
      });
    },
  });
}

/**
 * A rejected item is answered, logged and counted, never retried: the provider resends a notification
 * only when it is not acknowledged, and resending cannot fix a bad field (README, "Bad bytes in a
 * notification"). Logged at info with the request id: a sender's bad field, not a failure of the gateway.
 */
function reportRejected(
  ctx: PluginContext<MessagingEnv>,
  metrics: MessagingMetrics,
  rejected: readonly Rejection[],
  requestId: string,
): void {
  const statuses = rejected.filter((r) => r.path.includes('.statuses.')).length;
  if (rejected.length > statuses) metrics.webhookRejected('message', rejected.length - statuses);
  if (statuses > 0) metrics.webhookRejected('status', statuses);
  ctx.logger.info(
    { reqId: requestId, rejected: rejected.length, first: rejected.slice(0, 5) },
    'messaging: webhook items rejected',
  );
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
