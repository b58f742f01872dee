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
