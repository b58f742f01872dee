import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../../gateway/src/operator-api.ts';
import type { AnalysisSource } from '../prometheus/types.ts';
import { ANNOTATIONS, FIELD_MANAGER, LABELS } from '../api/names.ts';
import {
  analysisQueries,
  parseDuration,
  rolloutSettings,
  rolloutStateFromStatus,
  type RolloutRequests,
} from '../api/rollout-settings.ts';
import type { AuthConfigSpec, AuthConfigStatus } from '../api/types.generated.ts';
import { validateSpec } from '../api/validate-spec.ts';
import { configMapFor, configMapName } from '../render/config-map.ts';
import { renderEnv } from '../render/env.ts';
import { decide } from '../rollout/decide.ts';
import type { Analysis, ConditionDraft, RolloutSettings, RolloutState } from '../rollout/types.ts';
import { configMapsToPrune } from './config-map-history.ts';
import { mergeConditions, type ConditionType } from './status-conditions.ts';
import { planDeployment } from './deployment.ts';
import { eventFor, type EventNote, type InvolvedObject } from './events.ts';
import { isJsonObject, sameJson, type JsonObject } from '../api/json.ts';
import { createKubeClient, type KubeClient } from './kube-client.ts';
import {
  draftOf,
  initialRolloutState,
  progressingCondition,
  rolloutStatusFor,
  storedStatus,
} from './status.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from './types.ts';

/** The subset of a pino logger the reconciler uses. */
export interface ReconcileLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface ReconcilerOptions {
  kubeConfig: KubeConfig;
  clock: Clock;
  /** Where rollout analyses come from (operator/src/prometheus; tests inject a fake). */
  analysis: AnalysisSource;
  /** The one field manager of every server-side apply (`FIELD_MANAGER` by default). */
  fieldManager?: string;
  logger?: ReconcileLogger;
  /** The runtime's rollout metrics (operator/src/runtime/metrics.ts): the phase and each transition. */
  metrics?: ReconcileMetrics;
}

export interface ReconcileMetrics {
  setPhase(key: ObjectKey, phase: number): void;
  recordTransition(key: ObjectKey, transition: { from: string; to: string; reason: string }): void;
}

/** How soon a reconcile that found no target Deployment (or no gateway container) looks again. */
export const TARGET_RETRY_MS = 30_000;

const silent: ReconcileLogger = { info: () => undefined, warn: () => undefined };

/**
 * The AuthConfig reconciler (operator/README.md, "Reconciliation"), with the reconcile side of the rollout.
 * Level-based: each call reads the AuthConfig, its target Deployment and its env ConfigMaps, and converges them;
 * a call that finds everything in place writes nothing. Throws on API errors (the runtime retries with backoff);
 * the writes are ordered so that a reconcile interrupted anywhere is completed by the next one.
 */
export function createReconciler(options: ReconcilerOptions): Reconciler {
  const fieldManager = options.fieldManager ?? FIELD_MANAGER;
  const kube = createKubeClient(options.kubeConfig, fieldManager);
  return {
    reconcile: (key) =>
      reconcileOnce({
        kube,
        key,
        clock: options.clock,
        analysis: options.analysis,
        fieldManager,
        logger: options.logger ?? silent,
        metrics: options.metrics,
      }),
  };
}

interface Context {
  kube: KubeClient;
  key: ObjectKey;
  clock: Clock;
  analysis: AnalysisSource;
  fieldManager: string;
  logger: ReconcileLogger;
  metrics: ReconcileMetrics | undefined;
}

/** One reconcile of one AuthConfig, with what it read. */
interface Pass {
  ctx: Context;
  now: Date;
  object: JsonObject;
  involved: InvolvedObject;
  generation: number | undefined;
  status: AuthConfigStatus;
  events: EventNote[];
}

async function reconcileOnce(ctx: Context): Promise<ReconcileResult> {
  const { namespace, name } = ctx.key;
  const object = await ctx.kube.getAuthConfig(namespace, name);
  if (object === undefined) return {}; // deleted: its ConfigMaps go with it (ownerReferences)
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const pass: Pass = {
    ctx,
    now: ctx.clock.now(),
    object,
    involved: {
      namespace,
      name,
      ...(typeof metadata.uid === 'string' ? { uid: metadata.uid } : {}),
      ...(typeof metadata.resourceVersion === 'string' ? { resourceVersion: metadata.resourceVersion } : {}),
    },
    generation: typeof metadata.generation === 'number' ? metadata.generation : undefined,
    status: storedStatus(object.status),
    events: [],
  };

  // An AuthConfig the gateway would refuse to boot with is marked and changes nothing else: a bad spec must
  // never reach the pods (docs/adr/0007-operator.md, "Requirements").
  const verdict = validateSpec(object.spec);
  if (!verdict.ok) {
    const message = verdict.problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ');
    await finish(pass, notReady('InvalidSpec', message, 'the spec is invalid; nothing was changed'));
    return {};
  }
  const spec = verdict.spec;

  const deployment = await ctx.kube.getDeployment(namespace, spec.target.name);
  if (deployment === undefined) {
    const message = `Deployment ${namespace}/${spec.target.name} (spec.target.name) does not exist`;
    await finish(pass, notReady('TargetNotFound', message, 'waiting for the target Deployment'));
    return { requeueAfterMs: TARGET_RETRY_MS };
  }

  const settings = rolloutSettings(spec, rolloutRequests(metadata));
  const state = pass.status.rollout
    ? rolloutStateFromStatus(pass.status.rollout)
    : initialRolloutState(pass.now);
  const analysis = await analyse(ctx, spec, settings, state, pass.now);
  const decision = decide(settings, state, analysis, pass.now);
  const mode = decision.state.effectiveMode;

  const rendered = renderEnv(spec, mode);
  const configMap = configMapFor(name, rendered.env, {
    namespace,
    ...(pass.involved.uid !== undefined ? { ownerUid: pass.involved.uid } : {}),
  });
  const hash = configMap.metadata.labels[LABELS.configHash] ?? '';
  const plan = planDeployment(deployment, {
    authConfigName: name,
    ...(spec.target.container !== undefined ? { container: spec.target.container } : {}),
    configMapName: configMap.metadata.name,
    hash,
    secretEnv: rendered.secretEnv,
    plainNames: Object.keys(rendered.env),
  });
  if (!plan.ok) {
    await finish(pass, notReady(plan.reason, plan.message, 'waiting for the gateway container'));
    return { requeueAfterMs: TARGET_RETRY_MS };
  }

  // The ConfigMap first, then the Deployment that references it, then the status that records both.
  const stored = await ctx.kube.listConfigMaps(namespace, `${LABELS.authConfig}=${name}`);
  if (!stored.some((item) => item.name === configMap.metadata.name)) {
    if (await ctx.kube.createConfigMap(configMap)) {
      stored.push({ name: configMap.metadata.name }); // kept whatever its age: it is the applied one
      pass.events.push({
        type: 'Normal',
        reason: 'ConfigMapCreated',
        message: `created ConfigMap ${configMap.metadata.name}`,
      });
    }
  }
  if (!plan.upToDate) {
    await ctx.kube.applyDeployment(namespace, spec.target.name, plan.applyConfiguration);
    pass.events.push({
      type: 'Normal',
      reason: 'DeploymentPatched',
      message: `Deployment ${spec.target.name} now runs with ConfigMap ${configMap.metadata.name} (API_AUTH_MODE=${mode})`,
    });
  }

  const appliedBefore = pass.status.appliedHash;
  const previousHash =
    appliedBefore !== undefined && appliedBefore !== hash ? appliedBefore : pass.status.previousHash;
  const keep = [
    configMap.metadata.name,
    ...(previousHash !== undefined ? [configMapName(name, previousHash)] : []),
  ];
  for (const old of configMapsToPrune(stored, keep)) await ctx.kube.deleteConfigMap(namespace, old);

  if (decision.transition !== null) {
    const { from, to, reason } = decision.transition;
    ctx.metrics?.recordTransition(ctx.key, { from, to, reason });
    const warning = reason === 'FallbackToWarn' || reason === 'RollbackRequested';
    pass.events.push({
      type: warning ? 'Warning' : 'Normal',
      reason,
      message: `API_AUTH_MODE ${from} → ${to} (${reason})`,
    });
  }

  const ready: ConditionDraft = {
    status: 'True',
    reason: 'Applied',
    message: `Deployment ${spec.target.name} runs with ConfigMap ${configMap.metadata.name} (API_AUTH_MODE=${mode})`,
  };
  const rollout = rolloutStatusFor(decision.state, decision.phase3Ready.status === 'True');
  await finish(
    pass,
    {
      Ready: ready,
      Progressing: progressingCondition(settings, decision),
      Degraded: draftOf(decision.degraded),
      Promotable: draftOf(decision.promotable),
      Phase3Ready: draftOf(decision.phase3Ready),
    },
    {
      appliedHash: hash,
      ...(previousHash !== undefined ? { previousHash } : {}),
      rollout: rollout,
    },
  );
  if (rollout.phase !== undefined) ctx.metrics?.setPhase(ctx.key, rollout.phase);
  return mode === 'disabled'
    ? {}
    : { requeueAfterMs: Math.max(1000, nextAnalysisAt(settings, decision.state) - pass.now.getTime()) };
}

/** Ready and Progressing False with one reason; the other conditions keep describing what runs. */
function notReady(reason: string, message: string, progressing: string) {
  return {
    Ready: { status: 'False', reason, message },
    Progressing: { status: 'False', reason, message: progressing },
  } satisfies Partial<Record<ConditionType, ConditionDraft>>;
}

/**
 * Writes the status when it differs from the stored one (an unchanged reconcile writes nothing), then the
 * events of this pass, plus a Warning when Ready turned False for a new reason.
 *
 * Condition messages alone never cause a write: some tell elapsed time ("warn has soaked 5m30s"), and a
 * status write is a watch event that would reconcile again a second later and write again, for ever. They
 * are refreshed whenever anything else changes (each analysis records itself, so at least every interval).
 */
async function finish(
  pass: Pass,
  drafts: Partial<Record<ConditionType, ConditionDraft>>,
  fields: Pick<AuthConfigStatus, 'appliedHash' | 'previousHash' | 'rollout'> = {},
): Promise<void> {
  const { ctx, status, now } = pass;
  const next: AuthConfigStatus = {
    ...status,
    ...(pass.generation !== undefined ? { observedGeneration: pass.generation } : {}),
    conditions: mergeConditions(status.conditions, drafts, pass.generation, now),
    ...fields,
  };
  if (sameJson(withoutMessages(next), withoutMessages(status))) return;
  await ctx.kube.replaceAuthConfigStatus(pass.object, next);

  const before = status.conditions?.find((condition) => condition.type === 'Ready');
  const ready = drafts.Ready;
  if (
    ready?.status === 'False' &&
    (before?.status !== 'False' || before.reason !== ready.reason || before.message !== ready.message)
  )
    pass.events.push({ type: 'Warning', reason: ready.reason, message: ready.message });
  for (const note of pass.events) {
    try {
      await ctx.kube.createEvent(ctx.key.namespace, eventFor(pass.involved, note, ctx.fieldManager, now));
    } catch (error) {
      // Events are a courtesy to humans: a lost one must not undo or repeat the changes it reports.
      ctx.logger.warn({ err: error, reason: note.reason, ...ctx.key }, 'could not record an event');
    }
  }
  ctx.logger.info({ ...ctx.key, events: pass.events.map((note) => note.reason) }, 'AuthConfig reconciled');
}

function withoutMessages(status: AuthConfigStatus): AuthConfigStatus {
  return {
    ...status,
    ...(status.conditions
      ? { conditions: status.conditions.map((condition) => ({ ...condition, message: '' })) }
      : {}),
  };
}

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
function nextAnalysisAt(settings: RolloutSettings, state: RolloutState): number {
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
  ctx: Context,
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
