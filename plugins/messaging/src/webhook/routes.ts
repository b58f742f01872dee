import { timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { PluginContext } from '../../../../gateway/src/plugin/types.ts';
import type { MessagingEnv } from '../config.ts';
import { messagingErrors } from '../error-codes.ts';
import type { MessagingMetrics } from '../metrics.ts';
import { ingestStore } from '../store/ingest-store.ts';
import { parseNotification } from './notification.ts';
import { verifyHubSignature } from './signature.ts';

/**
 * The provider webhook (document 002: exempt; DECISIONS.md, "Provider format" and "Durability", binding).
 * `GET` answers the subscription challenge; `POST` persists every message of the notification in one
 * transaction before answering 200, then wakes the processing queue. A duplicate delivery changes nothing.
 */
export function registerWebhookRoutes(
  ctx: PluginContext<MessagingEnv>,
  deps: { metrics: MessagingMetrics; messagesQueued(): void },
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
      const now = ctx.clock.now();
      const store = async (db: Parameters<typeof ingestStore.insertInbound>[0]) => {
        let count = 0;
        for (const message of parsed.messages) if (await ingestStore.insertInbound(db, message, now)) count++;
        for (const status of parsed.statuses) await ingestStore.applyStatus(db, status);
        return count;
      };
      // One message (the usual notification) is one statement; more are one transaction.
      const single = parsed.messages.length + parsed.statuses.length <= 1;
      const stored = single ? await store(ctx.db.pool) : await ctx.db.transaction(store);
      deps.metrics.webhookAck((performance.now() - started) / 1000);
      if (stored > 0) deps.messagesQueued();
      res.json({ received: parsed.messages.length, stored, statuses: parsed.statuses.length });
    },
  });
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
