import { currentFigures, requiredSamples } from './figures.ts';
import { addSeconds, elapsedSeconds, formatDuration, formatRatio } from './format.ts';
import type {
  AnalysisRecord,
  ConditionDraft,
  PromotableReason,
  RolloutSettings,
  RolloutState,
} from './types.ts';

/**
 * The promotion criteria: what must hold before warn → enforce. (The status messages call them "the gates",
 * a word the product otherwise keeps for the gateway's API gate.)
 */
type CriterionReason =
  'MetricsUnavailable' | 'InsufficientSamples' | 'RatioTooHigh' | 'SoakInProgress' | 'AwaitingAnalysis';

interface Blocker {
  reason: CriterionReason;
  message: string;
}

/** What the promotion criteria say about a state in warn. */
export interface PromotionVerdict {
  /** The criteria that do not hold, most actionable first (an empty list: all hold). */
  blockers: Blocker[];
  /** Warn ran past `maxWarnSoakSeconds` while the SRE wants enforce: automatic promotion has stopped. */
  pastMaxSoak: boolean;
  /** `spec.apiAuth.mode` is warn: the ceiling is reached, nothing promotes. */
  atCeiling: boolean;
  /** Automatic promotion may act, or a human approved in this warn period. */
  approved: boolean;
  figures: AnalysisRecord | null;
}

/**
 * Evaluates the promotion criteria on the state's current figures (operator/README.md, "Rollout decisions",
 * rule 5): the minimum warn soak has passed since `since`, the would-deny ratio is at most `maxWouldDenyRatio`,
 * and the window holds at least `minGatedRequests` gated requests. A failed query blocks like a failed
 * criterion: metrics errors never promote.
 */
export function evaluatePromotionCriteria(
  settings: RolloutSettings,
  state: RolloutState,
  now: Date,
): PromotionVerdict {
  const figures = currentFigures(state);
  const elapsed = elapsedSeconds(state.since, now);
  const blockers: Blocker[] = [];

  if (figures !== null && !figures.ok) {
    blockers.push({
      reason: 'MetricsUnavailable',
      message: `the analysis query failed (${state.consecutiveQueryErrors} in a row): ${figures.error}; no promotion without metrics`,
    });
  } else if (figures !== null) {
    const required = requiredSamples(settings);
    // Too little traffic is inconclusive, never a pass: a ratio over a handful of requests says nothing.
    if (figures.gatedRequests < required) {
      blockers.push({
        reason: 'InsufficientSamples',
        message: `${figures.gatedRequests} gated requests in the window, fewer than the ${required} required: inconclusive`,
      });
    } else if (figures.failureRatio > settings.maxWouldDenyRatio) {
      blockers.push({
        reason: 'RatioTooHigh',
        message: `would-deny ratio ${formatRatio(figures.failureRatio)} over ${figures.gatedRequests} gated requests is above the maximum ${formatRatio(settings.maxWouldDenyRatio)}`,
      });
    }
  }
  // `!(>=)` rather than `<` so an unparsable `since` (NaN) keeps the soak running instead of passing it.
  if (!(elapsed >= settings.minWarnSoakSeconds)) {
    blockers.push({
      reason: 'SoakInProgress',
      message: `warn has soaked ${formatDuration(elapsed)} of the minimum ${formatDuration(settings.minWarnSoakSeconds)} (until ${addSeconds(state.since, settings.minWarnSoakSeconds)})`,
    });
  }
  if (figures === null) {
    blockers.push({ reason: 'AwaitingAnalysis', message: 'no analysis has run since warn was entered' });
  }

  const wantsEnforce = settings.desiredMode === 'enforce';
  // Warn is observed 24 to 72 h by default; past the maximum, a human decides (docs/api-auth-gate.md, "Phase
  // plan").
  const pastMaxSoak = wantsEnforce && elapsed > settings.maxWarnSoakSeconds;
  return {
    blockers,
    pastMaxSoak,
    atCeiling: !wantsEnforce,
    approved: humanApproved(settings, state) || (settings.automaticPromotion && !pastMaxSoak),
    figures,
  };
}

/** A human's approval counts only for the warn period it was given in, so it cannot outlive a fallback. */
function humanApproved(settings: RolloutSettings, state: RolloutState): boolean {
  const at = settings.promotionRequestedAt;
  return at !== undefined && Date.parse(at) >= Date.parse(state.since);
}

/** True when the criteria allow warn → enforce now; `fresh` says an analysis ran this step (never stale figures). */
export function mayPromote(verdict: PromotionVerdict, fresh: boolean): boolean {
  return fresh && verdict.blockers.length === 0 && verdict.approved && !verdict.atCeiling;
}

/** The `Promotable` condition of a state in warn (one that did not promote this step). */
export function warnPromotable(
  settings: RolloutSettings,
  state: RolloutState,
  verdict: PromotionVerdict,
  now: Date,
): ConditionDraft<PromotableReason> {
  const [first, ...rest] = verdict.blockers;
  const figures = verdict.figures === null ? '' : ` (analysis at ${verdict.figures.at})`;
  if (first?.reason === 'MetricsUnavailable') {
    return { status: 'False', reason: first.reason, message: first.message + figures };
  }
  if (first !== undefined && verdict.pastMaxSoak) {
    return {
      status: 'False',
      reason: 'MaxSoakExceeded',
      message: `warn has run ${formatDuration(elapsedSeconds(state.since, now))}, past the maximum ${formatDuration(settings.maxWarnSoakSeconds)}, without passing the gates (${first.message}); a human must decide: fix the clients, change the thresholds, or roll back`,
    };
  }
  if (first !== undefined) {
    const also = rest.length === 0 ? '' : `; also: ${rest.map((b) => b.message).join('; ')}`;
    const status = first.reason === 'AwaitingAnalysis' ? 'Unknown' : 'False';
    return { status, reason: first.reason, message: first.message + also + figures };
  }
  // Every criterion holds from here on: the condition is True and the reason says what, if anything, still waits.
  if (verdict.atCeiling) {
    return {
      status: 'True',
      reason: 'AtDesiredMode',
      message: `the gates pass${figures}; spec.apiAuth.mode is ${settings.desiredMode}, set it to enforce to promote`,
    };
  }
  if (!verdict.approved) {
    return verdict.pastMaxSoak && settings.automaticPromotion
      ? {
          status: 'True',
          reason: 'MaxSoakExceeded',
          message: `the gates pass${figures}, but warn ran past the maximum ${formatDuration(settings.maxWarnSoakSeconds)} so automatic promotion stopped; approve with gatehouse rollout promote`,
        }
      : {
          status: 'True',
          reason: 'ManualPromotionRequired',
          message: `the gates pass${figures}; automatic promotion is off, approve with gatehouse rollout promote`,
        };
  }
  return {
    status: 'True',
    reason: 'AwaitingAnalysis',
    message: `the gates passed${figures}; the promotion happens on the next analysis`,
  };
}
