import { Counter, type Registry } from 'prom-client';

/**
 * What became of a `POST /api/v1/kyc/initiate` that passed its API key and its body's schema (README, "Metrics"):
 * `created` (a new verification), `replayed` (an idempotent repeat answered with the first one's result) or
 * `quota_exhausted` (402: the live tenant's billable quota for the period is used up).
 */
export type InitiationOutcome = 'created' | 'replayed' | 'quota_exhausted';

const OUTCOMES: readonly InitiationOutcome[] = ['created', 'replayed', 'quota_exhausted'];

export interface InitiationMetrics {
  record(outcome: InitiationOutcome): void;
}

/** `gatehouse_kyc_initiations_total{outcome}`, every outcome served from boot at zero. */
export function createInitiationMetrics(registry: Registry): InitiationMetrics {
  const initiations = new Counter({
    name: 'gatehouse_kyc_initiations_total',
    help: 'KYC initiations by outcome (created, replayed, quota_exhausted)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of OUTCOMES) initiations.inc({ outcome }, 0);
  return { record: (outcome) => initiations.inc({ outcome }) };
}
