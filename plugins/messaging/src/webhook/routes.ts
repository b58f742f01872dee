import { timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { PluginContext } from '../../../../gateway/src/plugin/types.ts';
import type { MessagingEnv } from '../config.ts';
import { messagingErrors } from '../error-codes.ts';
import type { MessagingMetrics } from '../metrics.ts';
import { ingestStore } from '../store/ingest-store.ts';
import { createIngestBatcher } from './ingest-batcher.ts';
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
      const mine = (ids: Set<string>) => parsed.messages.filter((m) => ids.has(m.providerMessageId)).length;
      if (parsed.statuses.length === 0) {
        // The usual notification: its messages join the next group-committed write.
        if (parsed.messages.length > 0) stored = mine(await batcher.submit(parsed.messages));
      } else {
        stored = await ctx.db.transaction(async (tx) => {
          const ids =
            parsed.messages.length > 0
              ? await ingestStore.insertInbound(tx, parsed.messages, ctx.clock.now())
              : new Set<string>();
          for (const status of parsed.statuses) await ingestStore.applyStatus(tx, status);
          return mine(ids);
        });
      }
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
