import type { AnalysisSource } from '../prometheus/types.ts';
import { ANNOTATIONS } from '../api/names.ts';
import { isJsonObject, type JsonObject } from '../api/json.ts';
import {
  analysisQueries,
  parseDuration,
  rolloutSettings,
  rolloutStateFromStatus,
  type RolloutRequests,
} from '../api/rollout-settings.ts';
import type { AuthConfigSpec, AuthConfigStatus } from '../api/types.generated.ts';
import { decide } from '../rollout/decide.ts';
import type { Analysis, RolloutDecision, RolloutSettings, RolloutState } from '../rollout/types.ts';
import { initialRolloutState } from './status.ts';
import type { ObjectKey } from './types.ts';

/** Where a reconcile's analysis comes from, and for which AuthConfig. */
interface AnalysisContext {
  analysis: AnalysisSource;
  key: ObjectKey;
}

/** The rollout's side of one reconcile: the settings it ran with and what it decided. */
export interface RolloutStep {
  settings: RolloutSettings;
  decision: RolloutDecision;
}

/**
 * The rollout step of a reconcile (operator/README.md, "Reconciliation", step 4): the settings from the spec and
 * the SRE's annotations, the state from `status.rollout` (disabled, entered now, when there is none), the
 * analysis when one is due, and the decision.
 */
export async function stepRollout(
  ctx: AnalysisContext,
  spec: AuthConfigSpec,
  metadata: unknown,
  status: AuthConfigStatus,
  now: Date,
): Promise<RolloutStep> {
  const settings = rolloutSettings(spec, rolloutRequests(isJsonObject(metadata) ? metadata : {}));
  const state = status.rollout ? rolloutStateFromStatus(status.rollout) : initialRolloutState(now);
  const analysis = await analyse(ctx, spec, settings, state, now);
  return { settings, decision: decide(settings, state, analysis, now) };
}

/** What the SRE asked for through the AuthConfig's annotations (`gatehouse rollout rollback|promote`). */
function rolloutRequests(metadata: JsonObject): RolloutRequests {
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  const promote = annotations[ANNOTATIONS.promote];
  return {
    rollbackRequested: annotations[ANNOTATIONS.rollback] === 'true',
    ...(typeof promote === 'string' && promote !== '' ? { promotionRequestedAt: promote } : {}),
  };
}

/**
 * When the next analysis is due: one interval after the last analysis of the current period, or after the
 * mode was entered (an analysis right at entry would measure the previous mode's traffic).
 */
export function nextAnalysisAt(settings: RolloutSettings, state: RolloutState): number {
  const since = Date.parse(state.since);
  const last = state.lastAnalysis !== undefined ? Date.parse(state.lastAnalysis.at) : Number.NaN;
  const base = last >= since ? last : since;
  return base + settings.analysisIntervalSeconds * 1000;
}

/**
 * The analysis of this step, or null when none is due: only in warn or enforce, with a Prometheus to ask, and
 * never when the SRE asked for a rollback (applied at once, skipping analysis: operator/README.md, "Rollout
 * decisions", rule 1).
 */
async function analyse(
  ctx: AnalysisContext,
  spec: AuthConfigSpec,
  settings: RolloutSettings,
  state: RolloutState,
  now: Date,
): Promise<Analysis | null> {
  const mode = state.effectiveMode;
  const url = spec.apiAuth.rollout.prometheus.url;
  if (mode === 'disabled' || url === undefined) return null;
  if (settings.rollbackRequested || settings.desiredMode === 'disabled') return null;
  if (now.getTime() < nextAnalysisAt(settings, state)) return null;
  return ctx.analysis.analyse({
    prometheusUrl: url,
    queries: analysisQueries(spec, ctx.key.namespace),
    mode,
    windowSeconds: parseDuration(spec.apiAuth.rollout.analysisWindow),
    namespace: ctx.key.namespace,
    at: now,
  });
}
