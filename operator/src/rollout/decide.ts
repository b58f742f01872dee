import { checkFigures, fallbackThreshold, recordAnalysis, requiredSamples } from './figures.ts';
import { degradedCondition, phase3Condition, promotableCondition } from './rollout-conditions.ts';
import { appendHistory } from './history.ts';
import type {
  Analysis,
  ApiAuthMode,
  RolloutDecision,
  RolloutHistoryEntry,
  RolloutSettings,
  RolloutState,
  TransitionReason,
} from './types.ts';
import { evaluatePromotionCriteria, mayPromote } from './promotion-criteria.ts';

interface Move {
  to: ApiAuthMode;
  reason: TransitionReason;
}

/**
 * One step of the phased API_AUTH_MODE rollout (operator/README.md, "Rollout decisions"; the phases are
 * docs/api-auth-gate.md, "Phase plan"). Pure and deterministic: the time comes only from `now`, the inputs are
 * not mutated. `analysis` is null when no analysis was due.
 *
 * Precedence: an SRE's rollback or lowered mode first (applied at once, analysis skipped), then entry into warn,
 * then the enforce failure check (fallback), then the promotion criteria (warn → enforce). At most one transition
 * per step, and never more than one step upward.
 */
export function decide(
  settings: RolloutSettings,
  state: RolloutState,
  analysis: Analysis | null,
  now: Date,
): RolloutDecision {
  const fresh = analysis === null ? null : checkFigures(analysis);
  let next = recordAnalysis(state, fresh, now);

  let move = sreMove(settings, next);
  if (move === null && next.effectiveMode === 'enforce') {
    next = countEnforceCheck(settings, next, fresh);
    move = fallbackMove(settings, next);
  }
  if (move === null && next.effectiveMode === 'warn') {
    move = promotionMove(settings, next, fresh !== null, now);
  }

  let transition: RolloutHistoryEntry | null = null;
  if (move !== null) {
    transition = historyEntry(next, move, fresh, now);
    next = enter(next, transition);
  }
  return {
    state: next,
    transition,
    promotable: promotableCondition(settings, next, now),
    degraded: degradedCondition(settings, next),
    phase3Ready: phase3Condition(settings, next, now),
  };
}

/**
 * The moves a human asked for, applied at once without analysis:
 * - a rollback (the annotation, or `spec.apiAuth.mode: disabled`) goes to disabled from any phase, at once and
 *   skipping analysis: it is the SRE's way out when something breaks;
 * - `mode: warn` while enforcing goes back to warn: the desired mode is a ceiling;
 * - a desired warn or enforce while disabled enters warn, which needs no analysis (warn only observes), and
 *   never jumps to enforce (one step at a time).
 */
function sreMove(settings: RolloutSettings, state: RolloutState): Move | null {
  const from = state.effectiveMode;
  if (settings.rollbackRequested)
    return from === 'disabled' ? null : { to: 'disabled', reason: 'RollbackRequested' };
  if (settings.desiredMode === 'disabled') {
    return from === 'disabled' ? null : { to: 'disabled', reason: 'DesiredModeDisabled' };
  }
  if (settings.desiredMode === 'warn' && from === 'enforce')
    return { to: 'warn', reason: 'DesiredModeLowered' };
  if (from === 'disabled') return { to: 'warn', reason: 'DesiredModeRaised' };
  return null;
}

/**
 * Counts an enforce check (operator/README.md, "Rollout decisions", rule 4): a failure ratio above
 * `maxWouldDenyRatio` over enough samples is bad, one at or below it is good and resets the count. A window with
 * too few samples and a failed query are no evidence either way and leave the count as it is, so a lockout is
 * still caught across them but never caused by them. The same threshold as in warn: the would-deny ratio promoted
 * on was the prediction of this failure ratio.
 */
function countEnforceCheck(
  settings: RolloutSettings,
  state: RolloutState,
  analysis: Analysis | null,
): RolloutState {
  if (analysis === null || !analysis.ok || analysis.gatedRequests < requiredSamples(settings)) return state;
  const bad = analysis.failureRatio > settings.maxWouldDenyRatio;
  return { ...state, consecutiveBadChecks: bad ? state.consecutiveBadChecks + 1 : 0 };
}

/** After N bad checks in a row, back to warn rather than leave users locked out (operator/README.md, rule 4). */
function fallbackMove(settings: RolloutSettings, state: RolloutState): Move | null {
  return state.consecutiveBadChecks >= fallbackThreshold(settings)
    ? { to: 'warn', reason: 'FallbackToWarn' }
    : null;
}

/**
 * Warn → enforce only on an analysis that ran this step and meets every criterion, with automatic promotion on
 * (and within the maximum warn soak) or a human's approval (operator/README.md, rule 5). See
 * `evaluatePromotionCriteria`.
 */
function promotionMove(
  settings: RolloutSettings,
  state: RolloutState,
  fresh: boolean,
  now: Date,
): Move | null {
  return mayPromote(evaluatePromotionCriteria(settings, state, now), fresh)
    ? { to: 'enforce', reason: 'Promoted' }
    : null;
}

/** The history entry of a move: its time, from, to, reason and the figures the step saw ("History"). */
function historyEntry(
  state: RolloutState,
  move: Move,
  analysis: Analysis | null,
  now: Date,
): RolloutHistoryEntry {
  const figures: RolloutHistoryEntry['figures'] = {};
  if (analysis?.ok === true) {
    figures.gatedRequests = analysis.gatedRequests;
    figures.failureRatio = analysis.failureRatio;
  } else if (analysis?.ok === false) {
    figures.error = analysis.error;
  }
  if (state.effectiveMode === 'enforce') figures.consecutiveBadChecks = state.consecutiveBadChecks;
  return { at: now.toISOString(), from: state.effectiveMode, to: move.to, reason: move.reason, figures };
}

/**
 * Enters the mode of `entry`: the soak clock restarts and both counters reset, so a fallback needs a whole new
 * warn soak before it can be promoted again, and evidence never carries over from another mode.
 */
function enter(state: RolloutState, entry: RolloutHistoryEntry): RolloutState {
  return {
    ...state,
    effectiveMode: entry.to,
    since: entry.at,
    consecutiveBadChecks: 0,
    consecutiveQueryErrors: 0,
    history: appendHistory(state.history, entry),
  };
}
