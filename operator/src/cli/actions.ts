/**
 * The changes `gatehouse rollout promote|pause|resume|rollback` make, as pure plans: the JSON merge patch (or
 * none, when there is nothing to change or the request would mean nothing) and what to tell the SRE. The
 * reconciler reads the annotations in operator/src/reconcile/reconciler.ts (`rolloutRequests`) and the decision
 * engine honours them in operator/src/rollout/decide.ts.
 */
import { ANNOTATIONS } from '../api/names.ts';
import type { JsonObject } from '../api/json.ts';
import type { RolloutView } from './status-view.ts';

export const ACTIONS = ['promote', 'pause', 'resume', 'rollback'] as const;
export type Action = (typeof ACTIONS)[number];

export interface ActionPlan {
  /** The merge patch to send; null when nothing is to change. */
  patch: JsonObject | null;
  message: string;
  /** 1 when the request was refused (nothing changed because it would mean nothing). */
  exitCode: 0 | 1;
}

export interface ActionOptions {
  /** `rollback --clear`: lift the rollback request. */
  clear: boolean;
  now: Date;
}

export function planAction(action: Action, view: RolloutView, options: ActionOptions): ActionPlan {
  switch (action) {
    case 'promote':
      return planPromote(view, options.now);
    case 'pause':
      return planAutomaticPromotion(view, false);
    case 'resume':
      return planAutomaticPromotion(view, true);
    case 'rollback':
      return options.clear ? planClearRollback(view) : planRollback(view);
  }
}

const annotate = (key: string, value: string | null): JsonObject => ({
  metadata: { annotations: { [key]: value } },
});

/**
 * A human's approval of warn → enforce (operator/src/rollout/types.ts `promotionRequestedAt`). It only counts for
 * the warn period it is given in, so outside warn it would be ignored for ever: refused rather than written.
 */
function planPromote(view: RolloutView, now: Date): ActionPlan {
  const id = `${view.namespace}/${view.name}`;
  const mode = view.rollout?.effectiveMode;
  if (mode !== 'warn') {
    const where = mode === undefined ? 'has no rollout status yet' : `runs API_AUTH_MODE=${mode}`;
    return {
      patch: null,
      exitCode: 1,
      message: `${id} ${where}: promote approves warn → enforce and only counts while the effective mode is warn. Nothing changed.`,
    };
  }
  const at = now.toISOString();
  const promotable = view.conditions.find((item) => item.type === 'Promotable');
  const lines = [
    `Approved warn → enforce for ${id} at ${at} (${ANNOTATIONS.promote}).`,
    'The operator promotes at its next analysis if the gates pass (minimum warn soak, would-deny ratio, minimum',
    'gated requests); an approval stands in for automatic promotion and the maximum warn soak, never for the gates.',
  ];
  if (view.desiredMode !== 'enforce')
    lines.push(
      `spec.apiAuth.mode is ${view.desiredMode}: nothing promotes until it is enforce (the approval holds for this warn period).`,
    );
  if (promotable !== undefined)
    lines.push(`Promotable now: ${promotable.status} (${promotable.reason}): ${promotable.message}`);
  return { patch: annotate(ANNOTATIONS.promote, at), exitCode: 0, message: lines.join('\n') };
}

/** pause / resume: `spec.apiAuth.rollout.automaticPromotion` (a spec change: a new generation). */
function planAutomaticPromotion(view: RolloutView, on: boolean): ActionPlan {
  const id = `${view.namespace}/${view.name}`;
  if (view.automaticPromotion === on)
    return {
      patch: null,
      exitCode: 0,
      message: `Automatic promotion is already ${on ? 'on' : 'off'} for ${id}. Nothing changed.`,
    };
  const message = on
    ? `Automatic promotion is on for ${id}: warn → enforce happens when the analysis passes its gates.`
    : `Automatic promotion is off for ${id}: warn stays warn until \`gatehouse rollout promote ${view.name}\` or \`resume\`.\n` +
      'The fallback from enforce to warn on bad checks still acts.';
  return {
    patch: { spec: { apiAuth: { rollout: { automaticPromotion: on } } } },
    exitCode: 0,
    message,
  };
}

/**
 * A rollback requested by the SRE is applied at once, skipping analysis (operator/README.md, "Rollout
 * decisions", rule 1).
 */
function planRollback(view: RolloutView): ActionPlan {
  const id = `${view.namespace}/${view.name}`;
  const lines = view.rollbackRequested
    ? [`A rollback is already requested for ${id}. Nothing changed.`]
    : [
        `Rollback requested for ${id} (${ANNOTATIONS.rollback}=true).`,
        'The operator applies API_AUTH_MODE=disabled in its next reconcile, at once and without analysis, and the',
        'gateway pods are replaced (maxSurge 100%).',
      ];
  lines.push(`The rollout stays disabled until \`gatehouse rollout rollback ${view.name} --clear\`.`);
  return {
    patch: view.rollbackRequested ? null : annotate(ANNOTATIONS.rollback, 'true'),
    exitCode: 0,
    message: lines.join('\n'),
  };
}

function planClearRollback(view: RolloutView): ActionPlan {
  const id = `${view.namespace}/${view.name}`;
  if (!view.rollbackRequested)
    return { patch: null, exitCode: 0, message: `No rollback is requested for ${id}. Nothing changed.` };
  const next =
    view.desiredMode === 'disabled'
      ? 'it stays disabled: spec.apiAuth.mode is disabled.'
      : `the rollout resumes from disabled towards ${view.desiredMode} (spec.apiAuth.mode), one step at a time: warn first.`;
  return {
    patch: annotate(ANNOTATIONS.rollback, null),
    exitCode: 0,
    message: `Rollback lifted for ${id}; ${next}`,
  };
}
