import { GATEWAY_VARIABLES } from '../api/gateway-variables.ts';
import type { RenderedEnv } from '../render/env.ts';
import { ANNOTATIONS, FIELD_MANAGER } from '../api/names.ts';
import { isJsonObject, sameJson, type Json, type JsonObject } from '../api/json.ts';
import { dropsEnvEntry, ownsOnly } from './owned-fields.ts';

/** What the target Deployment's pod template must carry for one rendered configuration. */
export interface DeploymentTarget {
  /** The AuthConfig's name: env ConfigMaps are `<name>-env-<hash>`. */
  authConfigName: string;
  /** spec.target.container; the first container when absent. */
  container?: string;
  configMapName: string;
  hash: string;
  /** The digest of the referenced Secrets' data (secret-references.ts), for the secrets-hash annotation. */
  secretsHash: string;
  secretEnv: RenderedEnv['secretEnv'];
  /** The plain variables the ConfigMap sets (an `env` entry of the same name would shadow it). */
  plainNames: readonly string[];
}

export type DeploymentPlan =
  { ok: true; upToDate: boolean; applyConfiguration: JsonObject } | ContainerNotFound;

interface ContainerNotFound {
  ok: false;
  reason: 'ContainerNotFound';
  message: string;
}

/** The pod template's containers as they will be, the init containers, and the gateway container. */
export type PodContainers =
  | {
      ok: true;
      containers: JsonObject[];
      initContainers: JsonObject[];
      gateway: { live: JsonObject; applied: JsonObject };
    }
  | ContainerNotFound;

/**
 * The server-side apply configuration for the target Deployment (operator/README.md, "Reconciliation", step 6,
 * and "Field ownership"), from the live object. Pure. It holds the operator's own fields and nothing else, so
 * the operator owns exactly those and never co-owns what the installer (the Helm chart) owns:
 *
 * - the gateway container, identified by name, with `envFrom` (the container's other sources, then the env
 *   ConfigMap, so the operator's settings win) and the `secretKeyRef` entries of `env`. `envFrom` is an atomic
 *   list: the operator owns it whole. Entries it applied before and no longer applies are removed by the API
 *   server (when no other manager owns them).
 * - the pod template's config-hash annotation, so a new ConfigMap rolls the pods, and the secrets-hash
 *   annotation, so a rotated Secret does.
 * - `strategy.rollingUpdate.maxSurge: 100%`, so a rollback replaces all pods at once and stays under its 30 s
 *   (operator/README.md, "Rollback in under 30 seconds"); left out when the Deployment uses `Recreate`, where
 *   rollingUpdate is invalid.
 *
 * Up to date when the live object carries those values and the operator owns no other field (an operator that
 * once sent the containers whole co-owns them: one more apply gives them back).
 */
export function planDeployment(
  live: JsonObject,
  target: DeploymentTarget,
  fieldManager: string = FIELD_MANAGER,
): DeploymentPlan {
  const pod = podContainers(live, target, fieldManager);
  if (!pod.ok) return pod;
  const { gateway } = pod;
  const spec = objectAt(live, 'spec');
  const template = objectAt(spec, 'template');
  const strategy = objectAt(spec, 'strategy');
  const rolling = strategy.type === undefined || strategy.type === 'RollingUpdate';
  const annotations = objectAt(objectAt(template, 'metadata'), 'annotations');
  const metadata = objectAt(live, 'metadata');
  const applyConfiguration: JsonObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: metadata.name ?? null, namespace: metadata.namespace ?? null },
    spec: {
      ...(rolling ? { strategy: { rollingUpdate: { maxSurge: '100%' } } } : {}),
      template: {
        metadata: {
          annotations: {
            [ANNOTATIONS.configHash]: target.hash,
            [ANNOTATIONS.secretsHash]: target.secretsHash,
          },
        },
        spec: { containers: [gateway.applied] },
      },
    },
  };
  const upToDate =
    carries(gateway.live, gateway.applied) &&
    annotations[ANNOTATIONS.configHash] === target.hash &&
    annotations[ANNOTATIONS.secretsHash] === target.secretsHash &&
    (!rolling || objectAt(strategy, 'rollingUpdate').maxSurge === '100%') &&
    ownsOnly(live, fieldManager, applyConfiguration);
  return { ok: true, upToDate, applyConfiguration };
}

/** The live gateway container has the applied envFrom and each applied env entry as applied. */
function carries(live: JsonObject, applied: JsonObject): boolean {
  const env = Array.isArray(live.env) ? live.env : [];
  const wanted = Array.isArray(applied.env) ? applied.env : [];
  return (
    sameJson(live.envFrom, applied.envFrom) &&
    wanted.every((entry) => env.some((current) => sameJson(current, entry)))
  );
}

/**
 * The plain variables of the env ConfigMap that `env` entries of the gateway container override (`env` beats
 * `envFrom`): entries other managers own, which the operator cannot remove, so it reports them
 * (`Ready=False`, `EnvOverridden`). Pure.
 */
export function overriddenVariables(deployment: JsonObject, target: DeploymentTarget): string[] {
  const pod = podContainers(deployment, target);
  if (!pod.ok) return [];
  const plain = new Set(target.plainNames);
  const env = Array.isArray(pod.gateway.live.env) ? pod.gateway.live.env : [];
  return env
    .map((entry) => (isJsonObject(entry) && typeof entry.name === 'string' ? entry.name : ''))
    .filter((name) => plain.has(name));
}

/**
 * The pod template's containers once the operator's changes are in (the gateway container with its env and
 * envFrom as planned, the others as they are), its init containers (what the pods will read Secrets from), and
 * the gateway container as it is live and as the operator applies it. Pure.
 */
export function podContainers(
  live: JsonObject,
  target: Omit<DeploymentTarget, 'secretsHash'>,
  fieldManager: string = FIELD_MANAGER,
): PodContainers {
  const podSpec = objectAt(objectAt(objectAt(live, 'spec'), 'template'), 'spec');
  const containers = containersOf(podSpec, 'containers');
  const index =
    target.container === undefined
      ? containers.length > 0
        ? 0
        : -1
      : containers.findIndex((container) => container.name === target.container);
  const current = containers[index];
  if (current === undefined || typeof current.name !== 'string') {
    return {
      ok: false,
      reason: 'ContainerNotFound',
      message:
        target.container === undefined
          ? 'the target Deployment has no container'
          : `the target Deployment has no container named "${target.container}"`,
    };
  }
  const applied = gatewayFields(current, target);
  return {
    ok: true,
    containers: containers.map((container, i) =>
      i === index
        ? withApplied(container, applied, (name) =>
            dropsEnvEntry(live, fieldManager, current.name as string, name),
          )
        : container,
    ),
    initContainers: containersOf(podSpec, 'initContainers'),
    gateway: { live: current, applied },
  };
}

function containersOf(podSpec: JsonObject, field: 'containers' | 'initContainers'): JsonObject[] {
  const list = podSpec[field];
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

/** The gateway container's fields the operator applies: its name (the key), envFrom and the secret env entries. */
function gatewayFields(container: JsonObject, target: Omit<DeploymentTarget, 'secretsHash'>): JsonObject {
  const ownConfigMap = `${target.authConfigName}-env-`;
  const envFrom = (Array.isArray(container.envFrom) ? container.envFrom : []).filter((source) => {
    const name = isJsonObject(source) ? objectAt(source, 'configMapRef').name : undefined;
    return !(typeof name === 'string' && name.startsWith(ownConfigMap));
  });
  const env: Json[] = target.secretEnv.map((entry) => ({
    name: entry.name,
    valueFrom: {
      secretKeyRef: { name: entry.valueFrom.secretKeyRef.name, key: entry.valueFrom.secretKeyRef.key },
    },
  }));
  return {
    name: container.name ?? null,
    envFrom: [...envFrom, { configMapRef: { name: target.configMapName } }],
    ...(env.length > 0 ? { env } : {}),
  };
}

/**
 * The container as it will be: the applied envFrom, env entries merged by name. An entry the operator applied
 * before and applies no more is gone (`dropped`: it owns the entry alone); another manager's entry stays, and so do
 * the Secrets it reads.
 */
function withApplied(
  container: JsonObject,
  applied: JsonObject,
  dropped: (name: string) => boolean,
): JsonObject {
  const appliedEnv = Array.isArray(applied.env) ? applied.env.filter(isJsonObject) : [];
  const names = new Set(appliedEnv.map((entry) => entry.name));
  const kept = (Array.isArray(container.env) ? container.env : []).filter((entry) => {
    if (!isJsonObject(entry) || typeof entry.name !== 'string') return true;
    const fromSecret = isJsonObject(entry.valueFrom) && isJsonObject(entry.valueFrom.secretKeyRef);
    return (
      !names.has(entry.name) && !(fromSecret && GATEWAY_VARIABLES.has(entry.name) && dropped(entry.name))
    );
  });
  const env = [...kept, ...appliedEnv];
  return { ...container, envFrom: applied.envFrom ?? [], ...(env.length > 0 ? { env } : {}) };
}

function objectAt(value: JsonObject, key: string): JsonObject {
  const member = value[key];
  return isJsonObject(member) ? member : {};
}
