import { rolloutPhase } from '../api/rollout-settings.ts';
import type { AuthConfigStatus, RolloutStatus } from '../api/types.generated.ts';
import type { ConditionDraft, RolloutDecision, RolloutState, RolloutSettings } from '../rollout/types.ts';
import { isJsonObject } from '../api/json.ts';

/** `status.rollout` from the engine's state: the stored analysis is one object with optional figures. */
export function rolloutStatusFor(state: RolloutState, phase3Ready: boolean): RolloutStatus {
  const { lastAnalysis, ...rest } = state;
  return {
    ...rest,
    phase: rolloutPhase(state.effectiveMode, phase3Ready),
    ...(lastAnalysis !== undefined ? { lastAnalysis: { ...lastAnalysis } } : {}),
  };
}

/** The state the rollout starts from when the AuthConfig has none yet: disabled, entered now. */
export function initialRolloutState(now: Date): RolloutState {
  return {
    effectiveMode: 'disabled',
    since: now.toISOString(),
    consecutiveBadChecks: 0,
    consecutiveQueryErrors: 0,
    history: [],
  };
}

/** `Progressing`: True while the effective mode still has to move towards what the SRE asked for. */
export function progressingCondition(settings: RolloutSettings, decision: RolloutDecision): ConditionDraft {
  const wanted = settings.rollbackRequested ? 'disabled' : settings.desiredMode;
  const effective = decision.state.effectiveMode;
  return effective === wanted
    ? { status: 'False', reason: 'AtDesiredMode', message: `API_AUTH_MODE is ${effective}, as requested` }
    : {
        status: 'True',
        reason: 'RolloutInProgress',
        message: `API_AUTH_MODE is ${effective}, moving towards ${wanted} one step at a time`,
      };
}

/** A draft from one of the rollout engine's conditions. */
export function draftOf(condition: RolloutDecision['promotable']): ConditionDraft {
  return { status: condition.status, reason: condition.reason, message: condition.message };
}

/** The status as read back, typed (the operator is its only writer; anything else is overwritten). */
export function storedStatus(value: unknown): AuthConfigStatus {
  return isJsonObject(value) ? value : {};
}
