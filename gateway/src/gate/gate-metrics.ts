import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ApiAuthMode } from './config.ts';

export type GateLayer = 'hmac' | 'session';
/** `would_deny`: a failure in warn mode, which enforce would have refused (the rollout signal). */
export type GateOutcome = 'pass' | 'fail' | 'would_deny' | 'skipped';

/** One gated request's verdict over both layers: in warn, a failure of either layer is `would_deny`. */
export type GateVerdict = 'pass' | 'fail' | 'would_deny';

export interface GateMetrics {
  decision(layer: GateLayer, outcome: GateOutcome): void;
  /** Once per gated request (not per layer): what the operator's rollout analysis reads. */
  verdict(outcome: GateVerdict): void;
  /** Time spent in both gate layers for one request. */
  observe(seconds: number): void;
}

/**
 * The names of the gate's metrics: a contract with the operator, whose rollout analysis queries
 * `GATE_METRIC_NAMES.requests` (its default PromQL in operator/src/api/spec-schema.ts is built from this constant),
 * and with the dashboards and alerts users build on them. Renaming one is a breaking change.
 */
export const GATE_METRIC_NAMES = {
  /** Per layer: pass, fail, would_deny, skipped. */
  decisions: 'gatehouse_auth_gate_decisions_total',
  /** The mode the process runs with (value 1). */
  modeInfo: 'gatehouse_auth_mode_info',
  /** Time in both layers per gated request. */
  duration: 'gatehouse_auth_gate_duration_seconds',
  /** Per gated request, over both layers: what the rollout analysis reads. */
  requests: 'gatehouse_auth_gate_requests_total',
} as const;

/**
 * The gate's metrics. The rollout analysis reads the per-request verdicts: in warn, the share of requests that
 * enforce would have refused is `would_deny` over all of them.
 *
 * Decisions are counted in plain numbers on the request path and handed to prom-client when scraped
 * (`collect`), because prom-client re-hashes the label set on every `inc`.
 */
export function createGateMetrics(registry: Registry, mode: ApiAuthMode): GateMetrics {
  const pending = new Map<string, number>();
  new Counter({
    name: GATE_METRIC_NAMES.decisions,
    help: 'API gate decisions by layer, mode and outcome (pass, fail, would_deny, skipped)',
    labelNames: ['layer', 'mode', 'outcome'] as const,
    registers: [registry],
    collect() {
      for (const [key, count] of pending) {
        const [layer, outcome] = key.split('|') as [string, string];
        this.inc({ layer, mode, outcome }, count);
      }
      pending.clear();
    },
  });
  const info = new Gauge({
    name: GATE_METRIC_NAMES.modeInfo,
    help: 'The API_AUTH_MODE this process runs with (value 1)',
    labelNames: ['mode'] as const,
    registers: [registry],
  });
  info.set({ mode }, 1);
  const duration = new Histogram({
    name: GATE_METRIC_NAMES.duration,
    help: 'Time spent in the API gate (both layers) per gated request',
    buckets: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05],
    registers: [registry],
  });
  // Per request, not per layer: a request failing both layers in warn is one would_deny, so
  // would_deny / total is the share of requests enforce would have refused. Counted in plain numbers on
  // the request path and handed to prom-client when scraped, like the decisions. The mode's series exist
  // from the start at 0, so the first failure after a restart is an increase Prometheus can see.
  const verdicts = { pass: 0, fail: 0, would_deny: 0 };
  const verdictCounter = new Counter({
    name: GATE_METRIC_NAMES.requests,
    help: 'Gated requests by mode and verdict over both layers (pass, fail, would_deny)',
    labelNames: ['mode', 'outcome'] as const,
    registers: [registry],
    collect() {
      for (const outcome of ['pass', 'fail', 'would_deny'] as const) {
        if (verdicts[outcome] > 0) this.inc({ mode, outcome }, verdicts[outcome]);
        verdicts[outcome] = 0;
      }
    },
  });
  if (mode !== 'disabled') {
    for (const outcome of ['pass', 'fail', 'would_deny'] as const) verdictCounter.inc({ mode, outcome }, 0);
  }
  return {
    verdict(outcome) {
      verdicts[outcome]++;
    },
    decision(layer, outcome) {
      const key = `${layer}|${outcome}`;
      pending.set(key, (pending.get(key) ?? 0) + 1);
    },
    observe(seconds) {
      duration.observe(seconds);
    },
  };
}
