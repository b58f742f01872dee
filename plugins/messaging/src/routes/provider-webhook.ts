import { performance } from 'node:perf_hooks';
import { type Loop, type PluginContext, sameSecret } from '../../../../gateway/src/plugin-api.ts';
import type { MessagingEnv } from '../config.ts';
import { messagingErrors } from '../errors.ts';
import { verifyHubSignature } from '../domain/hub-signature.ts';
import { parseWebhookNotification, type Rejection } from '../domain/webhook-notification.ts';
import type { Ingest } from '../service/ingest.ts';
import type { MessagingMetrics } from '../service/messaging-metrics.ts';

/** Rejected items listed in an answer at most (`rejectedCount` has them all). */
const MAX_REPORTED = 100;

/**
 * The provider webhook, exempt from the API gate (plugins/messaging/README.md, "How a message flows",
 * points 1 and 2).
 * `GET` answers the subscription challenge; `POST` persists every valid message of the notification in one
 * transaction before answering 200, then wakes the processing queue. A duplicate delivery changes nothing.
 * The answer says what was stored and which items were rejected (README, "Bad bytes in a notification").
 */
export function registerProviderWebhookRoutes(
  ctx: PluginContext<MessagingEnv>,
  deps: { metrics: MessagingMetrics; ingest: Ingest; queue: Pick<Loop, 'kick'> },
): void {
  const verifyToken = ctx.config.WEBHOOK_VERIFY_TOKEN;

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
      const parsed = parseWebhookNotification(req.body);
      if (!parsed.ok) {
        throw messagingErrors.create('messaging.webhook.payload_invalid', {
          detail: `${parsed.issues.length} problem${parsed.issues.length === 1 ? '' : 's'} with the notification`,
          extensions: { errors: parsed.issues.slice(0, 50) },
        });
      }
      const stored = await deps.ingest.store(parsed);
      if (parsed.rejected.length > 0) reportRejected(ctx, deps.metrics, parsed.rejected, req.gatehouse.id);
      deps.metrics.webhookAck((performance.now() - started) / 1000);
      if (stored > 0) deps.queue.kick();
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
