import { definePlugin, migrationsDir, startFailureAudit } from '../../../gateway/src/plugin-api.ts';
import { registerTenantAdminRoutes } from './routes/tenant-admin-routes.ts';
import { registerReviewRoutes } from './routes/review-routes.ts';
import { apiKeyAuthentication } from './routes/api-key-authentication.ts';
import { registerTenantRoutes } from './routes/tenant-routes.ts';
import { kycCommands } from './cli/commands.ts';
import { kycErrors } from './errors.ts';
import { kycManifest } from './manifest.ts';
import { registerDocsRoutes } from './routes/docs-routes.ts';
import { manualProvider } from './providers/manual.ts';
import type { VerificationProvider } from './providers/provider.ts';
import { sandboxProvider } from './providers/sandbox.ts';
import { createKeyAuthenticator } from './service/api-keys.ts';
import { createRateLimiter } from './service/rate-limiter.ts';
import { createTenantService } from './service/tenants.ts';
import { createVerificationCache } from './service/verification-cache.ts';
import { createVerificationService } from './service/verifications.ts';
import { startWorker } from './service/worker.ts';
import { idempotencyStore } from './store/idempotency-store.ts';
import { registerWebhookAdminRoutes } from './routes/webhook-admin-routes.ts';
import { createWebhookDispatcher } from './webhooks/dispatcher.ts';
import { enqueueStatusWebhook } from './webhooks/outbox.ts';
import { createWebhookService } from './webhooks/webhook-service.ts';
import { webhookTargets } from './webhooks/webhook-targets.ts';

/**
 * Identity verification API for API-key tenants (document 001; DECISIONS.md, "Identity verification"):
 * tenants and keys, initiate and status, the verification lifecycle behind pluggable providers,
 * billable quota, idempotency, rate limits, webhooks, and the OpenAPI document with its explorer.
 */
export const kycPlugin = definePlugin({
  ...kycManifest,
  migrations: migrationsDir('kyc'),
  errors: kycErrors,
  commands: kycCommands,
  async register(ctx) {
    const config = ctx.config;
    const providers = new Map<string, VerificationProvider>(
      [sandboxProvider({ delayMs: config.KYC_SANDBOX_DELAY_MS }), manualProvider()].map((p) => [p.id, p]),
    );
    const cache = await createVerificationCache({ db: ctx.db, clock: ctx.clock, logger: ctx.logger });
    ctx.hooks.onClose(() => cache.stop());
    const verifications = createVerificationService({
      db: ctx.db,
      clock: ctx.clock,
      cache,
      providers,
      onStatusChange: [enqueueStatusWebhook],
    });
    const targets = webhookTargets({ allowPrivate: config.KYC_WEBHOOK_ALLOW_PRIVATE });
    const tenants = createTenantService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      webhookTargets: targets,
    });

    const keys = await createKeyAuthenticator({ db: ctx.db, clock: ctx.clock, logger: ctx.logger });
    ctx.hooks.onClose(() => keys.stop());
    const failures = startFailureAudit({
      audit: ctx.audit,
      clock: ctx.clock,
      onClose: (fn) => ctx.hooks.onClose(fn),
    });
    const authenticate = apiKeyAuthentication({
      keys,
      limiter: createRateLimiter({
        db: ctx.db,
        clock: ctx.clock,
        limit: config.KYC_RATE_LIMIT,
        windowSeconds: config.KYC_RATE_LIMIT_WINDOW_SECONDS,
      }),
      failures,
      windowSeconds: config.KYC_RATE_LIMIT_WINDOW_SECONDS,
    });

    registerTenantRoutes(ctx.routes, { authenticate, verifications, db: ctx.db, clock: ctx.clock });
    registerTenantAdminRoutes(ctx, { tenants, keys });
    registerReviewRoutes(ctx, { verifications });
    registerDocsRoutes(ctx.routes);
    registerWebhookAdminRoutes(ctx, {
      webhooks: createWebhookService({ db: ctx.db, clock: ctx.clock, audit: ctx.audit }),
    });

    const worker = startWorker({
      intervalMs: config.KYC_WORKER_INTERVAL_MS,
      logger: ctx.logger,
      tasks: [
        { name: 'provider steps', run: () => verifications.runDueSteps(20) },
        { name: 'expiry', run: () => verifications.expireOverdue(100) },
        createWebhookDispatcher({
          db: ctx.db,
          clock: ctx.clock,
          logger: ctx.logger,
          metrics: ctx.metrics,
          timeoutMs: config.KYC_WEBHOOK_TIMEOUT_MS,
          maxAttempts: config.KYC_WEBHOOK_MAX_ATTEMPTS,
          targets,
          batch: 20,
        }),
        {
          name: 'sweep',
          run: async () => {
            const now = ctx.clock.now();
            await ctx.db.query('DELETE FROM kyc_rate_windows WHERE window_start < $1', [
              new Date(now.getTime() - 86_400_000),
            ]);
            // Delivered webhooks are kept 30 days for support questions; failed ones until resent or
            // their verification goes.
            await ctx.db.query(
              "DELETE FROM kyc_webhook_deliveries WHERE status = 'delivered' AND delivered_at < $1",
              [new Date(now.getTime() - 30 * 86_400_000)],
            );
            return idempotencyStore.sweep(ctx.db.pool, now);
          },
        },
      ],
    });
    ctx.hooks.onClose(() => worker.stop());
  },
});
