import { currentFigures, fallbackThreshold } from './figures.ts';
import { addSeconds, elapsedSeconds, formatDuration, formatRatio } from './format.ts';
import type {
  ConditionDraft,
  DegradedReason,
  Phase3Reason,
  PromotableReason,
  RolloutSettings,
  RolloutState,
} from './types.ts';
import { evaluatePromotionCriteria, warnPromotable } from './promotion-criteria.ts';

/** The `Promotable` condition after a step, from the state the step produced. */
export function promotableCondition(
  settings: RolloutSettings,
  state: RolloutState,
  now: Date,
): ConditionDraft<PromotableReason> {
  switch (state.effectiveMode) {
    case 'warn':
      return warnPromotable(settings, state, evaluatePromotionCriteria(settings, state, now), now);
    case 'enforce':
      // Enforce is reached only through a promotion, so the condition stays True there instead of flapping.
      return { status: 'True', reason: 'Promoted', message: `promoted to enforce at ${state.since}` };
    case 'disabled':
      return settings.rollbackRequested
        ? {
            status: 'False',
            reason: 'RollbackRequested',
            message: 'a rollback is requested; the rollout stays disabled until the request is withdrawn',
          }
        : {
            status: 'False',
            reason: 'NotInWarn',
            message: `the effective mode is disabled (spec.apiAuth.mode is ${settings.desiredMode})`,
          };
  }
}

/**
 * The `Degraded` condition: True while the rollout runs in warn because it fell back from enforce
 * (operator/README.md, "Rollout decisions", rule 4), until the next transition (a re-promotion or a rollback). In
 * enforce it reports the checks so far.
 */
export function degradedCondition(
  settings: RolloutSettings,
  state: RolloutState,
): ConditionDraft<DegradedReason> {
  const last = state.history.at(-1);
  if (state.effectiveMode === 'warn' && last?.reason === 'FallbackToWarn') {
    const { consecutiveBadChecks, failureRatio, gatedRequests } = last.figures;
    return {
      status: 'True',
      reason: 'FallbackToWarn',
      message: `fell back from enforce to warn at ${last.at} after ${consecutiveBadChecks} consecutive bad checks (last failure ratio ${formatRatio(failureRatio ?? Number.NaN)} over ${gatedRequests} gated requests); re-promotion needs a new warn soak of ${formatDuration(settings.minWarnSoakSeconds)} and passing gates`,
    };
  }
  if (state.effectiveMode !== 'enforce') {
    return { status: 'False', reason: 'NoFallback', message: `the effective mode is ${state.effectiveMode}` };
  }
  const limit = fallbackThreshold(settings);
  const checks = `${state.consecutiveBadChecks} of ${limit} consecutive bad checks before falling back to warn`;
  if (state.consecutiveQueryErrors > 0) {
    const figures = currentFigures(state);
    const error = figures !== null && !figures.ok ? `: ${figures.error}` : '';
    return {
      status: 'Unknown',
      reason: 'MetricsUnavailable',
      message: `the analysis query failed (${state.consecutiveQueryErrors} in a row)${error}; query errors never trigger a fallback (${checks})`,
    };
  }
  if (state.consecutiveBadChecks > 0) {
    return { status: 'False', reason: 'BadChecks', message: checks };
  }
  return { status: 'False', reason: 'Healthy', message: 'enforce failure checks pass' };
}

/**
 * Phase 3 readiness: enforce soaked for `minEnforceSoak` (7 days by default), after which the disabled and warn
 * branches can be removed (docs/api-auth-gate.md, "Phase plan"). `since` is reset by every transition, so the
 * soak counts from the last entry into enforce and a fallback restarts it.
 */
export function phase3Condition(
  settings: RolloutSettings,
  state: RolloutState,
  now: Date,
): ConditionDraft<Phase3Reason> {
  if (state.effectiveMode !== 'enforce') {
    return {
      status: 'False',
      reason: 'NotInEnforce',
      message: `the effective mode is ${state.effectiveMode}`,
    };
  }
  const elapsed = elapsedSeconds(state.since, now);
  const soak = `enforce has soaked ${formatDuration(elapsed)} of the minimum ${formatDuration(settings.minEnforceSoakSeconds)}`;
  return elapsed >= settings.minEnforceSoakSeconds
    ? {
        status: 'True',
        reason: 'EnforceSoaked',
        message: `${soak}; the disabled and warn code paths can be removed`,
      }
    : {
        status: 'False',
        reason: 'EnforceSoakInProgress',
        message: `${soak} (until ${addSeconds(state.since, settings.minEnforceSoakSeconds)})`,
      };
}
