import {
  definePlugin,
  migrationsDir,
  type PluginContext,
  startFailureAudit,
} from '../../../gateway/src/plugin-api.ts';
import { kycCommands } from './cli/commands.ts';
import type { KycEnv } from './config.ts';
import { kycErrors } from './errors.ts';
import { kycManifest } from './manifest.ts';
import { manualProvider } from './providers/manual.ts';
import type { VerificationProvider } from './providers/provider.ts';
import { sandboxProvider } from './providers/sandbox.ts';
import { apiKeyAuthentication } from './routes/api-key-authentication.ts';
import { registerDocsRoutes } from './routes/docs-routes.ts';
import { registerReviewRoutes } from './routes/review-routes.ts';
import { registerTenantAdminRoutes } from './routes/tenant-admin-routes.ts';
import { registerTenantRoutes } from './routes/tenant-routes.ts';
import { createInitiationMetrics } from './service/initiation-metrics.ts';
import { registerWebhookAdminRoutes } from './routes/webhook-admin-routes.ts';
import { createKeyAuthenticator } from './service/key-authenticator.ts';
import { createRateLimiter } from './service/rate-limiter.ts';
import { sweepTask } from './service/sweep.ts';
import { createTenantService } from './service/tenant-service.ts';
import { createVerificationCache } from './service/verification-cache.ts';
import {
  createVerificationService,
  type VerificationService,
} from './service/verification/verification-service.ts';
import { startWorker } from './service/worker.ts';
import { createWebhookDispatcher } from './webhooks/dispatcher.ts';
import { enqueueStatusWebhook } from './webhooks/outbox.ts';
import { createWebhookService } from './webhooks/webhook-service.ts';
import { webhookTargets, type WebhookTargets } from './webhooks/webhook-targets.ts';

type Context = PluginContext<KycEnv>;

/**
 * Identity verification API for API-key tenants (README): tenants and keys, initiate and status, the
 * verification lifecycle behind pluggable providers, billable quota, idempotency, rate limits, webhooks,
 * and the OpenAPI document with its explorer.
 */
export const kycPlugin = definePlugin({
  ...kycManifest,
  migrations: migrationsDir('kyc'),
  errors: kycErrors,
  commands: kycCommands,
  async register(ctx) {
    const verifications = await startVerifications(ctx);
    const targets = webhookTargets({ allowPrivate: ctx.config.KYC_WEBHOOK_ALLOW_PRIVATE });
    const tenants = createTenantService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      webhookTargets: targets,
    });
    const { keys, authenticate } = await startApiKeyAuthentication(ctx);

    registerTenantRoutes(ctx.routes, {
      authenticate,
      verifications,
      db: ctx.db,
      clock: ctx.clock,
      initiations: createInitiationMetrics(ctx.metrics),
    });
    registerTenantAdminRoutes(ctx, { tenants, keys });
    registerReviewRoutes(ctx, { verifications });
    registerDocsRoutes(ctx.routes);
    registerWebhookAdminRoutes(ctx, {
      webhooks: createWebhookService({ db: ctx.db, clock: ctx.clock, audit: ctx.audit }),
    });

    startKycWorker(ctx, verifications, targets);
  },
});

/** The verification lifecycle behind the built-in providers, with its cache of status reads. */
async function startVerifications(ctx: Context): Promise<VerificationService> {
  const providers = new Map<string, VerificationProvider>(
    [sandboxProvider({ delayMs: ctx.config.KYC_SANDBOX_DELAY_MS }), manualProvider()].map((p) => [p.id, p]),
  );
  const cache = await createVerificationCache({ db: ctx.db, clock: ctx.clock, logger: ctx.logger });
  ctx.hooks.onClose(() => cache.stop());
  return createVerificationService({
    db: ctx.db,
    clock: ctx.clock,
    cache,
    providers,
    onStatusChange: [enqueueStatusWebhook],
  });
}

/** The tenant routes' API-key check with its rate limit and failure audit, and the keys it caches. */
async function startApiKeyAuthentication(ctx: Context) {
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
      limit: ctx.config.KYC_RATE_LIMIT,
      windowSeconds: ctx.config.KYC_RATE_LIMIT_WINDOW_SECONDS,
    }),
    failures,
    windowSeconds: ctx.config.KYC_RATE_LIMIT_WINDOW_SECONDS,
  });
  return { keys, authenticate };
}

/** The background work: provider steps, expiries, webhook deliveries and the sweep, stopped at shutdown. */
function startKycWorker(ctx: Context, verifications: VerificationService, targets: WebhookTargets): void {
  const worker = startWorker({
    intervalMs: ctx.config.KYC_WORKER_INTERVAL_MS,
    logger: ctx.logger,
    tasks: [
      { name: 'provider steps', run: () => verifications.runDueSteps(20) },
      { name: 'expiry', run: () => verifications.expireOverdue(100) },
      createWebhookDispatcher({
        db: ctx.db,
        clock: ctx.clock,
        logger: ctx.logger,
        metrics: ctx.metrics,
        timeoutMs: ctx.config.KYC_WEBHOOK_TIMEOUT_MS,
        maxAttempts: ctx.config.KYC_WEBHOOK_MAX_ATTEMPTS,
        targets,
        batch: 20,
      }),
      sweepTask({ db: ctx.db, clock: ctx.clock }),
    ],
  });
  ctx.hooks.onClose(() => worker.stop());
}
