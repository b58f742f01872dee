import type { AuthConfigCondition } from '../api/types.generated.ts';
import type { ConditionDraft } from '../rollout/types.ts';

export type ConditionType = AuthConfigCondition['type'];

/** The order conditions are written in, so an unchanged status serialises the same way. */
export const CONDITION_TYPES: readonly ConditionType[] = [
  'Ready',
  'Progressing',
  'Degraded',
  'Promotable',
  'Phase3Ready',
];

/**
 * The status conditions after a reconcile: the drafts replace the conditions of their type, the others are
 * kept as they were. `lastTransitionTime` changes only when a condition's status changes (Kubernetes API
 * conventions, "Typical status properties"), so re-computing an unchanged condition writes nothing.
 */
export function mergeConditions(
  previous: readonly AuthConfigCondition[] | undefined,
  drafts: Partial<Record<ConditionType, ConditionDraft>>,
  observedGeneration: number | undefined,
  now: Date,
): AuthConfigCondition[] {
  const result: AuthConfigCondition[] = [];
  for (const type of CONDITION_TYPES) {
    const before = previous?.find((condition) => condition.type === type);
    const draft = drafts[type];
    if (draft === undefined) {
      if (before !== undefined) result.push(before);
      continue;
    }
    const lastTransitionTime =
      before !== undefined && before.status === draft.status ? before.lastTransitionTime : now.toISOString();
    result.push({
      type,
      status: draft.status,
      reason: draft.reason,
      message: draft.message,
      ...(observedGeneration !== undefined ? { observedGeneration } : {}),
      lastTransitionTime,
    });
  }
  return result;
}

/** What stands between an applied Deployment and pods running the applied configuration. */
export interface AppliedProblems {
  /** Required Secrets the pods reference that do not exist. */
  missingSecrets: readonly string[];
  /** Variables of the env ConfigMap that `env` entries the operator does not own override. */
  overriddenEnv: readonly string[];
}

interface AppliedTarget extends AppliedProblems {
  deployment: string;
  container: string | undefined;
  configMap: string;
  mode: string;
}

/**
 * `Ready` after the Deployment was applied: `Applied`; or False with `SecretNotFound` (its new pods cannot
 * start), else `EnvOverridden` (env entries another manager owns override variables of the ConfigMap, which
 * the operator cannot remove: the pods would not run the applied configuration, a rollback included).
 */
export function readyAfterApply(target: AppliedTarget): ConditionDraft {
  const { deployment, configMap, missingSecrets, overriddenEnv } = target;
  if (missingSecrets.length > 0) {
    return {
      status: 'False',
      reason: 'SecretNotFound',
      message: `Deployment ${deployment} references Secrets that do not exist: ${missingSecrets.join(', ')}; its new pods cannot start until they do`,
    };
  }
  if (overriddenEnv.length > 0) {
    const container =
      target.container === undefined ? 'the gateway container' : `container ${target.container}`;
    return {
      status: 'False',
      reason: 'EnvOverridden',
      message: `env entries of ${container} in Deployment ${deployment} override variables of ConfigMap ${configMap}: ${overriddenEnv.join(', ')}; they are not the operator's to remove: take them out where the Deployment is defined`,
    };
  }
  return {
    status: 'True',
    reason: 'Applied',
    message: `Deployment ${deployment} runs with ConfigMap ${configMap} (API_AUTH_MODE=${target.mode})`,
  };
}
