import type { AnalysisRecord, RolloutSettings, RolloutState } from '../rollout/types.ts';
import { DURATION_PATTERN } from './spec-schema.ts';
import type {
  AnalysisRecord as StoredAnalysis,
  ApiAuthMode,
  AuthConfigSpec,
  PrometheusQueries,
  RolloutStatus,
} from './types.generated.ts';

const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };
const durationPattern = new RegExp(DURATION_PATTERN);

/** Seconds in a duration of the schema's form (`24h`, `1h30m`, `90s`); throws on anything else. */
export function parseDuration(text: string): number {
  if (!durationPattern.test(text)) throw new Error(`not a duration like 24h, 1h30m or 90s: "${text}"`);
  let seconds = 0;
  // Sticky: the pattern above made the text a run of <digits><unit>, read from its start.
  for (const [, amount, unit] of text.matchAll(/(\d+)([hms])/gy))
    seconds += Number(amount) * (UNIT_SECONDS[unit ?? 's'] ?? 1);
  return seconds;
}

/** What an SRE asked for outside the spec (annotations set by `gatehouse rollout ...`). */
export interface RolloutRequests {
  rollbackRequested: boolean;
  /** When a human approved warn → enforce (ISO-8601). */
  promotionRequestedAt?: string;
}

/** The rollout engine's settings (operator/src/rollout/types.ts) from a validated, defaulted spec. */
export function rolloutSettings(spec: AuthConfigSpec, requests: RolloutRequests): RolloutSettings {
  const policy = spec.apiAuth.rollout;
  return {
    desiredMode: spec.apiAuth.mode,
    automaticPromotion: policy.automaticPromotion,
    minWarnSoakSeconds: parseDuration(policy.minWarnSoak),
    maxWarnSoakSeconds: parseDuration(policy.maxWarnSoak),
    minEnforceSoakSeconds: parseDuration(policy.minEnforceSoak),
    maxWouldDenyRatio: policy.maxWouldDenyRatio,
    minGatedRequests: policy.minGatedRequests,
    analysisIntervalSeconds: parseDuration(policy.analysisInterval),
    consecutiveFailuresBeforeFallback: policy.consecutiveFailuresBeforeFallback,
    rollbackRequested: requests.rollbackRequested,
    ...(requests.promotionRequestedAt !== undefined
      ? { promotionRequestedAt: requests.promotionRequestedAt }
      : {}),
  };
}

/**
 * The rollout engine's state from `status.rollout` as read back. The stored analysis is one object with
 * `ok` and optional figures (what a CRD schema can say); the engine's is a union, so a record whose
 * figures do not match its `ok` is dropped rather than trusted (the next analysis replaces it).
 */
export function rolloutStateFromStatus(status: RolloutStatus): RolloutState {
  const { lastAnalysis, phase: _phase, ...state } = status;
  const analysis = lastAnalysis ? analysisFromStatus(lastAnalysis) : undefined;
  return analysis ? { ...state, lastAnalysis: analysis } : state;
}

function analysisFromStatus(stored: StoredAnalysis): AnalysisRecord | undefined {
  const { at, mode } = stored;
  if (stored.ok && stored.gatedRequests !== undefined && stored.failureRatio !== undefined)
    return { ok: true, gatedRequests: stored.gatedRequests, failureRatio: stored.failureRatio, at, mode };
  if (!stored.ok && stored.error !== undefined) return { ok: false, error: stored.error, at, mode };
  return undefined;
}

/**
 * The analysis queries with their placeholders filled: `{{window}}` becomes the analysis window (a PromQL
 * duration, same syntax), `{{namespace}}` the AuthConfig's namespace.
 */
export function analysisQueries(spec: AuthConfigSpec, namespace: string): PrometheusQueries {
  const fill = (query: string) =>
    query
      .replaceAll('{{window}}', spec.apiAuth.rollout.analysisWindow)
      .replaceAll('{{namespace}}', namespace);
  const queries = spec.apiAuth.rollout.prometheus.queries;
  return {
    gatedRequests: fill(queries.gatedRequests),
    wouldDeny: fill(queries.wouldDeny),
    failed: fill(queries.failed),
  };
}

/**
 * The rollout phase (docs/api-auth-gate.md, "Phase plan"): 0 disabled, 1 warn, 2 enforce, 3 enforce soaked
 * (phase 3 ready).
 */
export function rolloutPhase(effectiveMode: ApiAuthMode, phase3Ready: boolean): 0 | 1 | 2 | 3 {
  if (effectiveMode === 'disabled') return 0;
  if (effectiveMode === 'warn') return 1;
  return phase3Ready ? 3 : 2;
}
