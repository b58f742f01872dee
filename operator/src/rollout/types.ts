/**
 * The phased API_AUTH_MODE rollout's contract (operator/README.md, "Rollout decisions"). The decision is a pure
 * function of the AuthConfig's rollout settings, its status so far, the analysis window's metric figures and the
 * time, so every scenario is tested on a virtual clock.
 */
export type ApiAuthMode = 'disabled' | 'warn' | 'enforce';

export interface RolloutSettings {
  /** The mode the SRE wants (spec.apiAuth.mode). */
  desiredMode: ApiAuthMode;
  automaticPromotion: boolean;
  minWarnSoakSeconds: number; // default 24 h
  maxWarnSoakSeconds: number; // default 72 h: then ask a human
  minEnforceSoakSeconds: number; // default 7 d (phase 3 readiness)
  maxWouldDenyRatio: number; // e.g. 0.001
  minGatedRequests: number; // minimum samples in the window
  analysisIntervalSeconds: number;
  consecutiveFailuresBeforeFallback: number;
  /** An annotation or spec change asking for an immediate rollback to disabled. */
  rollbackRequested: boolean;
  /**
   * When a human approved warn → enforce (ISO-8601; the `gatehouse rollout promote` annotation). It stands in for
   * `automaticPromotion` (and for the maximum warn soak) but never for the analysis gates, and it only counts for
   * the warn period it was given in (at or after `since`), so a stale approval cannot re-promote after a fallback.
   */
  promotionRequestedAt?: string;
}

/** What the analysis measured over its window (null when the query failed). */
export type Analysis =
  | {
      ok: true;
      gatedRequests: number;
      /** warn: would_deny / total; enforce: fail / total. */
      failureRatio: number;
    }
  | { ok: false; error: string };

export interface RolloutHistoryEntry {
  at: string;
  from: ApiAuthMode;
  to: ApiAuthMode;
  reason: string;
  /** The figures the decision saw. */
  figures: { gatedRequests?: number; failureRatio?: number; consecutiveBadChecks?: number; error?: string };
}

export interface RolloutState {
  /** The mode the gateway runs now (what the operator rendered). */
  effectiveMode: ApiAuthMode;
  /** When effectiveMode was entered (ISO-8601). */
  since: string;
  consecutiveBadChecks: number;
  /** Analysis queries that failed in a row (never promote on them). */
  consecutiveQueryErrors: number;
  history: RolloutHistoryEntry[];
  /**
   * The last analysis the decision saw, when it ran and the effective mode it measured. The reconciler schedules
   * the next one from `at`; the conditions report its figures between analyses (never promote on them).
   */
  lastAnalysis?: AnalysisRecord;
}

/** An analysis as recorded in the status. */
export type AnalysisRecord = Analysis & { at: string; mode: ApiAuthMode };

/**
 * The reason codes, stable for the CLI, alerts and the README (a test checks each is documented there).
 * Why the effective mode changed (`RolloutHistoryEntry.reason`):
 */
export const TRANSITION_REASONS = [
  'DesiredModeRaised',
  'Promoted',
  'FallbackToWarn',
  'DesiredModeLowered',
  'DesiredModeDisabled',
  'RollbackRequested',
] as const;
export type TransitionReason = (typeof TRANSITION_REASONS)[number];

export const PROMOTABLE_REASONS = [
  'Promoted',
  'SoakInProgress',
  'InsufficientSamples',
  'RatioTooHigh',
  'MetricsUnavailable',
  'AwaitingAnalysis',
  'ManualPromotionRequired',
  'MaxSoakExceeded',
  'AtDesiredMode',
  'NotInWarn',
  'RollbackRequested',
] as const;
export type PromotableReason = (typeof PROMOTABLE_REASONS)[number];

export const DEGRADED_REASONS = [
  'FallbackToWarn',
  'BadChecks',
  'MetricsUnavailable',
  'Healthy',
  'NoFallback',
] as const;
export type DegradedReason = (typeof DEGRADED_REASONS)[number];

export const PHASE3_REASONS = ['EnforceSoaked', 'EnforceSoakInProgress', 'NotInEnforce'] as const;
export type Phase3Reason = (typeof PHASE3_REASONS)[number];

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * A status condition as it is computed: its status, a reason code and a message for humans. The reconciler
 * adds the generation and the transition time when it writes the condition into the status.
 */
export interface ConditionDraft<R extends string = string> {
  status: ConditionStatus;
  reason: R;
  message: string;
}

export interface RolloutDecision {
  state: RolloutState;
  /** Set when the effective mode changes this step. */
  transition: RolloutHistoryEntry | null;
  /** The `Promotable` condition. Reasons: Promoted, SoakInProgress, InsufficientSamples, RatioTooHigh,
   *  MetricsUnavailable, ManualPromotionRequired, MaxSoakExceeded, NotInWarn, ... */
  promotable: ConditionDraft;
  /** The `Degraded` condition (True after a fallback from enforce). */
  degraded: ConditionDraft;
  /** Phase 3 readiness: enforce soaked for the minimum. */
  phase3Ready: ConditionDraft;
}
