import { Counter, Histogram, type Registry } from 'prom-client';
import type { Classification, FallThrough, Tier } from './types.ts';

/** What the classifier reports; the plugin passes prom-client counters, tests may pass nothing. */
export interface ClassifierMetrics {
  classified(classification: Classification): void;
  fellThrough(tier: Tier, reason: FallThrough): void;
  /** Duration of one language-model call (tier 3), whatever its outcome. */
  modelCall(seconds: number): void;
}

/**
 * The classifier's metrics, prefixed with the plugin id like all of its names (ADR 0001): answers per tier
 * and intent, fall-throughs per tier and reason (a rising `tier="3",reason="timeout"` is a slow model), and
 * model latency.
 */
export function createClassifierMetrics(registry: Registry): ClassifierMetrics {
  const classifications = new Counter({
    name: 'gatehouse_messaging_classifications_total',
    help: 'Messages classified, by the tier that answered and the intent',
    labelNames: ['tier', 'intent'] as const,
    registers: [registry],
  });
  const fallThroughs = new Counter({
    name: 'gatehouse_messaging_classifier_fallthroughs_total',
    help: 'Classifier tiers that did not answer, by tier and reason',
    labelNames: ['tier', 'reason'] as const,
    registers: [registry],
  });
  const modelDuration = new Histogram({
    name: 'gatehouse_messaging_classifier_model_duration_seconds',
    help: 'Duration of language-model classification calls (tier 3)',
    buckets: [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 5],
    registers: [registry],
  });
  return {
    classified({ tier, intent }) {
      classifications.inc({ tier: String(tier), intent });
    },
    fellThrough(tier, reason) {
      fallThroughs.inc({ tier: String(tier), reason });
    },
    modelCall(seconds) {
      modelDuration.observe(seconds);
    },
  };
}
