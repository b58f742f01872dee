import type { Analysis, AnalysisRecord, RolloutSettings, RolloutState } from './types.ts';

/**
 * An `ok` analysis whose figures cannot be right (negative or non-finite counts, a ratio outside [0, 1], as a
 * query over a counter reset or an empty result can produce) is treated as a query error: NaN compares false
 * against every threshold, so it would otherwise pass as a good enforce check. Metric query errors are counted
 * apart and never promote (operator/README.md, "Rollout decisions").
 */
export function checkFigures(analysis: Analysis): Analysis {
  if (!analysis.ok) return analysis;
  const { gatedRequests, failureRatio } = analysis;
  const valid =
    Number.isFinite(gatedRequests) &&
    gatedRequests >= 0 &&
    Number.isFinite(failureRatio) &&
    failureRatio >= 0 &&
    failureRatio <= 1;
  return valid
    ? analysis
    : {
        ok: false,
        error: `invalid analysis figures: gatedRequests=${gatedRequests}, failureRatio=${failureRatio}`,
      };
}

/**
 * The analysis recorded in the state: the last one seen, and the count of query errors in a row (reset by any
 * `ok` analysis). A null analysis (none due) leaves both as they were.
 */
export function recordAnalysis(state: RolloutState, analysis: Analysis | null, now: Date): RolloutState {
  if (analysis === null) return state;
  const lastAnalysis: AnalysisRecord = { ...analysis, at: now.toISOString(), mode: state.effectiveMode };
  return {
    ...state,
    lastAnalysis,
    consecutiveQueryErrors: analysis.ok ? 0 : state.consecutiveQueryErrors + 1,
  };
}

/**
 * The figures of the current period: the last analysis if it measured the mode running now and ran after that
 * mode was entered. Warn figures never speak for enforce, nor a previous warn period for this one.
 */
export function currentFigures(state: RolloutState): AnalysisRecord | null {
  const last = state.lastAnalysis;
  if (last === undefined || last.mode !== state.effectiveMode) return null;
  return Date.parse(last.at) >= Date.parse(state.since) ? last : null;
}

/**
 * The fewest gated requests a window needs to count. Zero traffic is never evidence, even with
 * `minGatedRequests: 0`: too little traffic is inconclusive, never a pass (operator/README.md, rule 5).
 */
export function requiredSamples(settings: RolloutSettings): number {
  return Math.max(1, settings.minGatedRequests);
}

/** Bad enforce checks in a row that trigger a fallback: at least one, whatever the setting says. */
export function fallbackThreshold(settings: RolloutSettings): number {
  const limit = Math.floor(settings.consecutiveFailuresBeforeFallback);
  return Number.isNaN(limit) ? 1 : Math.max(1, limit);
}
