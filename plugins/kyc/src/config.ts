import { z } from 'zod';
import { boolean, integer } from '../../../gateway/src/plugin-api.ts';

/** The kyc plugin's settings (docs/configuration.md, "kyc"). */
export const kycConfigSchema = z.object({
  /** Requests per API key per window, shared by every replica (RateLimit-* headers, 429 beyond). */
  KYC_RATE_LIMIT: integer(600, 1, 10_000_000),
  KYC_RATE_LIMIT_WINDOW_SECONDS: integer(60, 1, 86_400),
  /** How long the sandbox provider "works" on a verification before it decides, like a real provider. */
  KYC_SANDBOX_DELAY_MS: integer(2_000, 0, 600_000),
  /** How often the verification worker looks for due provider steps, expiries and webhook deliveries. */
  KYC_WORKER_INTERVAL_MS: integer(1_000, 10, 600_000),
  /** Timeout of one webhook delivery attempt. */
  KYC_WEBHOOK_TIMEOUT_MS: integer(5_000, 100, 60_000),
  /** Attempts before a delivery is marked failed (resend is then manual). */
  KYC_WEBHOOK_MAX_ATTEMPTS: integer(12, 1, 100),
  /**
   * Lets webhook URLs point to private, loopback and link-local addresses. Off: the gateway would otherwise
   * POST wherever a tenant's URL leads inside the deployment. For development and tests only.
   */
  KYC_WEBHOOK_ALLOW_PRIVATE: boolean(false),
});

export type KycEnv = z.output<typeof kycConfigSchema>;
