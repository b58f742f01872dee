import { definePlugin, migrationsDir, startLoop } from '../../../gateway/src/plugin-api.ts';
import { messagingCommands } from './cli/commands.ts';
import { loadEscalationRules } from './domain/escalation-rules.ts';
import { messagingErrors } from './errors.ts';
import { createChatModel } from './llm/chat-model.ts';
import { messagingManifest } from './manifest.ts';
import { startSender } from './outbound/sender.ts';
import { registerFaqRoutes } from './routes/faq-routes.ts';
import { registerFeedbackRoutes } from './routes/feedback-routes.ts';
import { registerFollowUpRoutes } from './routes/follow-up-routes.ts';
import { registerInboxRoutes } from './routes/inbox-routes.ts';
import { registerKbEvaluationRoutes } from './routes/kb-evaluation-routes.ts';
import { registerKbGapRoutes } from './routes/kb-gap-routes.ts';
import { registerKbRoutes } from './routes/kb-routes.ts';
import { registerLeadRoutes } from './routes/lead-routes.ts';
import { registerOpenApiRoutes } from './routes/openapi-routes.ts';
import { registerProviderWebhookRoutes } from './routes/provider-webhook.ts';
import { staffAuthentication } from './routes/staff-authentication.ts';
import { createFollowUpService } from './service/follow-up-service.ts';
import { startFollowUps } from './service/follow-up-scheduler.ts';
import { createIngest } from './service/ingest.ts';
import { createKbAnswerer } from './service/kb-answers.ts';
import { mirrorFaqIntoKb } from './service/kb-faq-mirror.ts';
import { gapPass } from './service/kb-gaps.ts';
import { startLeadCountCompaction, useSummaryZone } from './service/lead-count-rollup.ts';
import { createLeadService } from './service/lead-service.ts';
import { scheduledFaqSync, type FaqSyncDeps } from './service/faq-sync.ts';
import { createMessagingMetrics } from './service/messaging-metrics.ts';
import { createProcessingPorts } from './service/processing-ports.ts';
import { createProcessor } from './service/processor.ts';
import { queueHealth } from './service/queue-health.ts';
import { startQueueWorker } from './service/queue-worker.ts';

/**
 * Messaging and lead capture (plugins/messaging/README.md): the provider webhook, durable ingest, the
 * processing queue, the four-tier classifier, lead capture, escalation with deduplicated notifications,
 * and replies through the provider's send API. Depends on auth (staff accounts).
 */
export const messagingPlugin = definePlugin({
  ...messagingManifest,
  migrations: migrationsDir('messaging'),
  errors: messagingErrors,
  commands: messagingCommands,
  async register(ctx) {
    const { config } = ctx;
    const metrics = createMessagingMetrics(ctx.metrics, ctx.db);
    const model = createChatModel({
      baseUrl: config.LLM_BASE_URL,
      model: config.LLM_MODEL,
      apiKey: config.LLM_API_KEY,
      timeoutMs: config.LLM_TIMEOUT_MS,
    });

    // A message flows webhook → queue → processor → outbox → sender. Each stage is built before the one
    // that feeds it and handed to it, so calls only go down the pipeline, never back up.
    const sender = startSender({
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.logger,
      metrics,
      baseUrl: config.MESSAGING_API_BASE_URL,
      token: config.MESSAGING_API_TOKEN,
      timeoutMs: config.MESSAGING_SEND_TIMEOUT_MS,
      leaseMs: config.MESSAGING_SEND_LEASE_MS,
      maxAttempts: config.MESSAGING_SEND_MAX_ATTEMPTS,
      intervalMs: config.MESSAGING_WORKER_INTERVAL_MS,
    });
    const ports = createProcessingPorts(model, ctx.metrics, createKbAnswerer({ db: ctx.db, model }));
    const processor = createProcessor({
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.logger,
      metrics,
      ports,
      rules: loadEscalationRules(),
      handoffIdleMs: config.MESSAGING_HANDOFF_IDLE_MS,
      maxAttempts: config.MESSAGING_MAX_ATTEMPTS,
      batchSize: config.MESSAGING_BATCH_SIZE,
      sender,
    });
    const queue = startQueueWorker({
      logger: ctx.logger,
      concurrency: config.MESSAGING_WORKER_CONCURRENCY,
      intervalMs: config.MESSAGING_WORKER_INTERVAL_MS,
      processor,
    });
    registerProviderWebhookRoutes(ctx, { metrics, ingest: createIngest(ctx), queue });

    // The staff API: one authentication (and scope) for all of its routes (README, "Staff API"), and the
    // document describing them.
    const staff = staffAuthentication(ctx, ctx.db);
    registerInboxRoutes(ctx, { staff, sender });
    // The summary's counts are in the configured zone before a route serves, then kept folded.
    await useSummaryZone(ctx, config.MESSAGING_SUMMARY_TIME_ZONE);
    const compaction = startLeadCountCompaction({ ...ctx, intervalMs: config.MESSAGING_SUMMARY_COMPACT_MS });
    const leads = createLeadService({
      ...ctx,
      exportMaxRows: config.MESSAGING_EXPORT_MAX_ROWS,
      summaryZone: config.MESSAGING_SUMMARY_TIME_ZONE,
    });
    registerLeadRoutes(ctx, { staff, leads });
    registerFeedbackRoutes(ctx, { staff });
    // Follow-ups (README, "Follow-ups"): a background pass on every replica, sending through the outbox.
    const followUps = startFollowUps({
      ...ctx,
      sender,
      intervalMs: config.MESSAGING_FOLLOW_UP_INTERVAL_MS,
      handoffIdleMs: config.MESSAGING_HANDOFF_IDLE_MS,
    });
    const followUpService = createFollowUpService({ ...ctx, kick: followUps.kick });
    registerFollowUpRoutes(ctx, { staff, followUps: followUpService });
    ctx.hooks.onClose(() => followUps.stop());
    // The FAQ and its sync with the external knowledge service (README, "FAQ").
    const faqSync: FaqSyncDeps = {
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.logger,
      upstream: config.FAQ_SYNC_URL
        ? {
            url: config.FAQ_SYNC_URL,
            token: config.FAQ_SYNC_TOKEN,
            timeoutMs: config.FAQ_SYNC_TIMEOUT_MS,
            maxBytes: config.FAQ_SYNC_MAX_BYTES,
          }
        : null,
    };
    registerFaqRoutes(ctx, { staff, sync: faqSync });
    const faqLoop =
      faqSync.upstream && config.FAQ_SYNC_INTERVAL_MS > 0
        ? startLoop({
            name: 'messaging-faq-sync',
            // Ticks more often than the interval; each pass syncs only once the last run is that old.
            intervalMs: Math.min(config.FAQ_SYNC_INTERVAL_MS, 60_000),
            logger: ctx.logger,
            pass: () => scheduledFaqSync(faqSync, config.FAQ_SYNC_INTERVAL_MS),
          })
        : null;
    registerKbRoutes(ctx, { staff });
    // FAQ entries written before their documents existed get them now (README, "From the FAQ").
    await ctx.db.transaction((tx) => mirrorFaqIntoKb(tx, ctx.clock.now()));
    registerKbEvaluationRoutes(ctx, { staff });
    // Knowledge-base gaps (README, "Gaps"): collected and re-checked on every replica's loop and on demand.
    const gaps = { db: ctx.db, clock: ctx.clock, normalise: ports.normalise };
    registerKbGapRoutes(ctx, { staff, gaps });
    const gapLoop =
      config.MESSAGING_KB_GAP_INTERVAL_MS > 0
        ? startLoop({
            name: 'messaging-kb-gaps',
            intervalMs: config.MESSAGING_KB_GAP_INTERVAL_MS,
            logger: ctx.logger,
            pass: async () => ((await gapPass(gaps)).more ? 1 : 0),
          })
        : null;
    ctx.hooks.onClose(async () => gapLoop?.stop());
    registerOpenApiRoutes(ctx.routes);

    // Close hooks run in reverse: the queue stops first, then the sender finishes the sends its last
    // batches handed over and stops.
    ctx.hooks.onClose(() => sender.stop());
    ctx.hooks.onClose(() => queue.stop());
    ctx.hooks.onClose(() => compaction.stop());
    ctx.hooks.onClose(async () => faqLoop?.stop());
    ctx.hooks.health(() => queueHealth(ctx.db));
  },
});
