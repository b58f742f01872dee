import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../../gateway/src/operator-api.ts';
import type { AnalysisSource } from '../prometheus/types.ts';
import { FIELD_MANAGER, LABELS } from '../api/names.ts';
import { isJsonObject, sameJson, type JsonObject } from '../api/json.ts';
import type { ApiAuthMode, AuthConfigSpec, AuthConfigStatus } from '../api/types.generated.ts';
import { validateSpec } from '../api/validate-spec.ts';
import { configMapFor, configMapName, type EnvConfigMap } from '../render/config-map.ts';
import { renderEnv } from '../render/env.ts';
import type { ConditionDraft, RolloutDecision } from '../rollout/types.ts';
import { configMapsToPrune, type StoredConfigMap } from './config-map-history.ts';
import {
  overriddenVariables,
  planDeployment,
  podContainers,
  type DeploymentPlan,
  type DeploymentTarget,
} from './deployment.ts';
import { eventFor, type EventNote, type InvolvedObject } from './events.ts';
import { createKubeClient, type KubeClient } from './kube-client.ts';
import { nextAnalysisAt, stepRollout, type RolloutStep } from './rollout-step.ts';
import { referencedSecrets, secretsDigest, type SecretReference } from './secret-references.ts';
import { draftOf, progressingCondition, rolloutStatusFor, storedStatus } from './status.ts';
import {
  mergeConditions,
  readyAfterApply,
  type AppliedProblems,
  type ConditionType,
} from './status-conditions.ts';
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
  /** What the AuthConfig asks for: the phase it wants (a rollback wants disabled) and whether promotion is automatic. */
  setIntent?(key: ObjectKey, intent: { desiredPhase: 0 | 1 | 2; automaticPromotion: boolean }): void;
  recordTransition(key: ObjectKey, transition: { from: string; to: string; reason: string }): void;
}

/** The phase number of each API_AUTH_MODE, as gatehouse_operator_authconfig_phase counts them. */
const MODE_PHASE = { disabled: 0, warn: 1, enforce: 2 } as const;

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

/** One reconcile of one AuthConfig, in the steps of operator/README.md, "Reconciliation". */
async function reconcileOnce(ctx: Context): Promise<ReconcileResult> {
  const pass = await readAuthConfig(ctx);
  if (pass === undefined) return {}; // deleted: its ConfigMaps go with it (ownerReferences)

  // An AuthConfig the gateway would refuse to boot with is marked and changes nothing else: a bad spec must
  // never reach the pods (docs/adr/0007-operator.md, "Requirements").
  const verdict = validateSpec(pass.object.spec);
  if (!verdict.ok) {
    const message = verdict.problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ');
    await finish(pass, notReady('InvalidSpec', message, 'the spec is invalid; nothing was changed'));
    return {};
  }
  const spec = verdict.spec;

  const { namespace } = ctx.key;
  const deployment = await ctx.kube.getDeployment(namespace, spec.target.name);
  if (deployment === undefined) {
    const message = `Deployment ${namespace}/${spec.target.name} (spec.target.name) does not exist`;
    await finish(pass, notReady('TargetNotFound', message, 'waiting for the target Deployment'));
    return { requeueAfterMs: TARGET_RETRY_MS };
  }

  const step = await stepRollout(ctx, spec, pass.object.metadata, pass.status, pass.now);
  const target = deploymentTarget(pass, spec, step.decision.state.effectiveMode);
  const pod = podContainers(deployment, target, ctx.fieldManager);
  if (!pod.ok) {
    await finish(pass, notReady(pod.reason, pod.message, 'waiting for the gateway container'));
    return { requeueAfterMs: TARGET_RETRY_MS };
  }
  const secrets = await readSecrets(ctx, referencedSecrets([...pod.initContainers, ...pod.containers]));
  const desired = desiredObjects(deployment, target, secrets.digest, ctx.fieldManager);
  if (!desired.plan.ok) {
    await finish(
      pass,
      notReady(desired.plan.reason, desired.plan.message, 'waiting for the gateway container'),
    );
    return { requeueAfterMs: TARGET_RETRY_MS };
  }

  // The ConfigMap first, then the Deployment that references it, then the status that records both.
  const storedMaps = await createConfigMap(pass, desired.configMap);
  const stored = await applyDeployment(pass, spec, desired, desired.plan);
  const previousHash = await pruneConfigMaps(pass, storedMaps, desired);
  recordTransition(pass, step.decision);
  const problems = {
    missingSecrets: secrets.missing,
    overriddenEnv: overriddenVariables(stored ?? deployment, { ...target, secretsHash: secrets.digest }),
  };
  const result = await finishApplied(pass, spec, step, desired, previousHash, problems);
  // A missing Secret is also looked for again on a timer, in case its creation is missed by the watch.
  const requeueAfterMs =
    secrets.missing.length === 0
      ? result.requeueAfterMs
      : Math.min(result.requeueAfterMs ?? TARGET_RETRY_MS, TARGET_RETRY_MS);
  return { ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }), secrets: secrets.names };
}

/** Step 1: the AuthConfig and what this pass needs of its metadata, or undefined when it is gone. */
async function readAuthConfig(ctx: Context): Promise<Pass | undefined> {
  const { namespace, name } = ctx.key;
  const object = await ctx.kube.getAuthConfig(namespace, name);
  if (object === undefined) return undefined;
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return {
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
}

/** What the pass wants to exist: the env ConfigMap for the effective mode and the Deployment's apply plan. */
interface Desired {
  configMap: EnvConfigMap;
  hash: string;
  mode: ApiAuthMode;
  plan: DeploymentPlan;
}

/** What the pass wants of the Deployment, with the rendered env ConfigMap. Pure. */
interface Target extends Omit<DeploymentTarget, 'secretsHash'> {
  configMap: EnvConfigMap;
  mode: ApiAuthMode;
}

/** Step 5 and 6, computed: the rendered env ConfigMap and what the gateway container gets. Pure. */
function deploymentTarget(pass: Pass, spec: AuthConfigSpec, mode: ApiAuthMode): Target {
  const { namespace, name } = pass.ctx.key;
  const rendered = renderEnv(spec, mode);
  const configMap = configMapFor(name, rendered.env, {
    namespace,
    ...(pass.involved.uid !== undefined ? { ownerUid: pass.involved.uid } : {}),
  });
  return {
    configMap,
    mode,
    authConfigName: name,
    ...(spec.target.container !== undefined ? { container: spec.target.container } : {}),
    configMapName: configMap.metadata.name,
    hash: configMap.metadata.labels[LABELS.configHash] ?? '',
    secretEnv: rendered.secretEnv,
    plainNames: Object.keys(rendered.env),
  };
}

/** The Deployment's apply plan for a target and the digest of the Secrets its pods read. Pure. */
function desiredObjects(
  deployment: JsonObject,
  target: Target,
  secretsHash: string,
  fieldManager: string,
): Desired {
  const { configMap, mode, ...rest } = target;
  const plan = planDeployment(deployment, { ...rest, secretsHash }, fieldManager);
  return { configMap, hash: target.hash, mode, plan };
}

/** The Secrets the pods will read: their names, the digest of their data, and the required ones missing. */
interface SecretsRead {
  names: string[];
  digest: string;
  missing: string[];
}

/**
 * Reads every referenced Secret to digest its data (operator/README.md, "Secret rotation"). A missing one is
 * part of the digest as absent, so its creation rolls the pods; a required one missing is reported, not thrown:
 * the runtime's backoff would only retry what a watch event will signal.
 */
async function readSecrets(ctx: Context, references: SecretReference[]): Promise<SecretsRead> {
  const read = await Promise.all(
    references.map(async (reference) => ({
      ...reference,
      data: await ctx.kube.getSecretData(ctx.key.namespace, reference.name),
    })),
  );
  return {
    names: references.map((reference) => reference.name),
    digest: secretsDigest(read),
    missing: read
      .filter((secret) => secret.data === undefined && !secret.optional)
      .map((secret) => secret.name),
  };
}

/** Step 5: creates the env ConfigMap when absent (never modifies one); returns the AuthConfig's ConfigMaps. */
async function createConfigMap(pass: Pass, configMap: EnvConfigMap): Promise<StoredConfigMap[]> {
  const { kube, key } = pass.ctx;
  const stored = await kube.listConfigMaps(key.namespace, `${LABELS.authConfig}=${key.name}`);
  if (!stored.some((item) => item.name === configMap.metadata.name)) {
    if (await kube.createConfigMap(configMap)) {
      stored.push({ name: configMap.metadata.name }); // kept whatever its age: it is the applied one
      pass.events.push({
        type: 'Normal',
        reason: 'ConfigMapCreated',
        message: `created ConfigMap ${configMap.metadata.name}`,
      });
    }
  }
  return stored;
}

/**
 * Step 6: the server-side apply of the operator's fields, skipped when the live Deployment already carries them;
 * the Deployment as stored, or undefined when nothing was written.
 */
async function applyDeployment(
  pass: Pass,
  spec: AuthConfigSpec,
  desired: Desired,
  plan: Extract<DeploymentPlan, { ok: true }>,
): Promise<JsonObject | undefined> {
  if (plan.upToDate) return undefined;
  const { namespace } = pass.ctx.key;
  const stored = await pass.ctx.kube.applyDeployment(namespace, spec.target.name, plan.applyConfiguration);
  pass.events.push({
    type: 'Normal',
    reason: 'DeploymentPatched',
    message: `Deployment ${spec.target.name} now runs with ConfigMap ${desired.configMap.metadata.name} (API_AUTH_MODE=${desired.mode})`,
  });
  return stored;
}

/**
 * Deletes the ConfigMaps past the history (the applied one and the previous one always kept); returns the hash
 * of the previous configuration, the one a rollback can return to.
 */
async function pruneConfigMaps(
  pass: Pass,
  stored: StoredConfigMap[],
  desired: Desired,
): Promise<string | undefined> {
  const appliedBefore = pass.status.appliedHash;
  const previousHash =
    appliedBefore !== undefined && appliedBefore !== desired.hash ? appliedBefore : pass.status.previousHash;
  const keep = [
    desired.configMap.metadata.name,
    ...(previousHash !== undefined ? [configMapName(pass.ctx.key.name, previousHash)] : []),
  ];
  for (const old of configMapsToPrune(stored, keep)) {
    await pass.ctx.kube.deleteConfigMap(pass.ctx.key.namespace, old);
  }
  return previousHash;
}

/** A transition of the effective mode: counted in the metrics and told in an Event (Warning when it backs off). */
function recordTransition(pass: Pass, decision: RolloutDecision): void {
  if (decision.transition === null) return;
  const { from, to, reason } = decision.transition;
  pass.ctx.metrics?.recordTransition(pass.ctx.key, { from, to, reason });
  const warning = reason === 'FallbackToWarn' || reason === 'RollbackRequested';
  pass.events.push({
    type: warning ? 'Warning' : 'Normal',
    reason,
    message: `API_AUTH_MODE ${from} → ${to} (${reason})`,
  });
}

/** Step 7 to 9 after an apply: the status with every condition, the phase metric, and when to come back. */
async function finishApplied(
  pass: Pass,
  spec: AuthConfigSpec,
  step: RolloutStep,
  desired: Desired,
  previousHash: string | undefined,
  problems: AppliedProblems,
): Promise<ReconcileResult> {
  const { settings, decision } = step;
  const ready = readyAfterApply({
    deployment: spec.target.name,
    container: spec.target.container,
    configMap: desired.configMap.metadata.name,
    mode: desired.mode,
    ...problems,
  });
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
      appliedHash: desired.hash,
      ...(previousHash !== undefined ? { previousHash } : {}),
      rollout: rollout,
    },
  );
  if (rollout.phase !== undefined) pass.ctx.metrics?.setPhase(pass.ctx.key, rollout.phase);
  pass.ctx.metrics?.setIntent?.(pass.ctx.key, {
    desiredPhase: MODE_PHASE[settings.rollbackRequested ? 'disabled' : settings.desiredMode],
    automaticPromotion: settings.automaticPromotion,
  });
  return desired.mode === 'disabled'
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
