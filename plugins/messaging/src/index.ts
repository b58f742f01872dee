import { definePlugin, migrationsDir, startLoop } from '../../../gateway/src/plugin-api.ts';
import { messagingCommands } from './cli/commands.ts';
import { messagingErrors } from './errors.ts';
import { messagingManifest } from './manifest.ts';
import { loadEscalationRules } from './escalation/rules.ts';
import { createChatModel } from './llm/chat-model.ts';
import { createMessagingMetrics } from './metrics.ts';
import { createProcessingPorts } from './ports.ts';
import { createProcessor } from './queue/processor.ts';
import { startQueueWorker } from './queue/worker.ts';
import { createSender } from './replies/sender.ts';
import { registerWebhookRoutes } from './webhook/routes.ts';

/**
 * Messaging and lead capture (document 002; DECISIONS.md, "Messaging"): the provider webhook, durable
 * ingest, the processing queue, the four-tier classifier, lead capture, escalation with deduplicated
 * notifications, and replies through the provider's send API. Depends on auth (staff accounts).
 */
export const messagingPlugin = definePlugin({
  ...messagingManifest,
  migrations: migrationsDir('messaging'),
  errors: messagingErrors,
  commands: messagingCommands,
  register(ctx) {
    const config = ctx.config;
    const metrics = createMessagingMetrics(ctx.metrics, ctx.db);
    const model = createChatModel({
      baseUrl: config.LLM_BASE_URL,
      model: config.LLM_MODEL,
      apiKey: config.LLM_API_KEY,
      timeoutMs: config.LLM_TIMEOUT_MS,
    });
    const sender = createSender({
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.logger,
      metrics,
      baseUrl: config.MESSAGING_API_BASE_URL,
      token: config.MESSAGING_API_TOKEN,
      timeoutMs: config.MESSAGING_SEND_TIMEOUT_MS,
      leaseMs: config.MESSAGING_SEND_LEASE_MS,
      maxAttempts: config.MESSAGING_SEND_MAX_ATTEMPTS,
      wakeClaim: () => sending.kick(),
    });
    const sending = startLoop({
      name: 'send',
      intervalMs: config.MESSAGING_WORKER_INTERVAL_MS,
      logger: ctx.logger,
      pass: () => sender.run(100),
    });
    const processor = createProcessor({
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.logger,
      metrics,
      ports: createProcessingPorts(model, ctx.metrics),
      rules: loadEscalationRules(),
      maxAttempts: config.MESSAGING_MAX_ATTEMPTS,
      batchSize: config.MESSAGING_BATCH_SIZE,
      replies: sender,
      onRepliesQueued: (conversationIds) => sender.queued(conversationIds),
    });
    const queue = startQueueWorker({
      logger: ctx.logger,
      concurrency: config.MESSAGING_WORKER_CONCURRENCY,
      intervalMs: config.MESSAGING_WORKER_INTERVAL_MS,
      processBatch: () => processor.processBatch(),
    });
    registerWebhookRoutes(ctx, { metrics, messagesQueued: () => queue.kick() });
    // Close hooks run in reverse: the queue stops first, then the sends handed over by its last batches
    // finish, then the claim loop stops, and last the connections to the send API close.
    ctx.hooks.onClose(() => sender.close());
    ctx.hooks.onClose(() => sending.stop());
    ctx.hooks.onClose(() => sender.drain());
    ctx.hooks.onClose(() => queue.stop());
    ctx.hooks.health(async () => {
      const { rows } = await ctx.db.query<{ queued: number; dead: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE processing_status = 'queued')::int AS queued,
                count(*) FILTER (WHERE processing_status = 'dead')::int AS dead,
                count(*) FILTER (WHERE delivery_status = 'failed')::int AS failed
           FROM messaging_messages
          WHERE processing_status IN ('queued', 'dead') OR delivery_status = 'failed'`,
      );
      return { status: 'ok', queue: rows[0] };
    });
  },
});
