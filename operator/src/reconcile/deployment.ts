import { GATEWAY_VARIABLES } from '../api/gateway-variables.ts';
import type { RenderedEnv } from '../render/env.ts';
import { ANNOTATIONS } from '../api/names.ts';
import { isJsonObject, sameJson, type Json, type JsonObject } from '../api/json.ts';

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

/** The pod template's containers as the operator wants them, and the init containers as they are. */
export type PodContainers =
  { ok: true; containers: JsonObject[]; initContainers: JsonObject[] } | ContainerNotFound;

/**
 * The server-side apply configuration for the target Deployment (operator/README.md, "Reconciliation", step 6),
 * from the live object. Pure.
 *
 * - The gateway container gets `envFrom` the env ConfigMap (after the container's other sources, so the
 *   operator's settings win) and the `secretKeyRef` entries; entries the operator set before (an env ConfigMap of
 *   this AuthConfig, a gateway secret from a Secret) and plain `env` entries that would shadow a ConfigMap
 *   variable (`env` beats `envFrom`, which would defeat a rollback) are replaced.
 * - The pod template gets the config-hash annotation, so a new ConfigMap rolls the pods, and the secrets-hash
 *   annotation, so a rotated Secret does.
 * - `strategy.rollingUpdate.maxSurge: 100%`, so a rollback replaces all pods at once and stays under its 30 s
 *   (operator/README.md, "Rollback in under 30 seconds"); left out when the Deployment uses `Recreate`, where
 *   rollingUpdate is invalid.
 *
 * The containers list is sent whole, copied from the live object with only the gateway container changed: the
 * test API server merges lists atomically, and on a real server the operator then shares ownership of the other
 * fields at their current values (they are re-read before every apply, never reverted).
 */
export function planDeployment(live: JsonObject, target: DeploymentTarget): DeploymentPlan {
  const pod = podContainers(live, target);
  if (!pod.ok) return pod;
  const desiredContainers = pod.containers;
  const spec = objectAt(live, 'spec');
  const template = objectAt(spec, 'template');
  const containers = containersOf(objectAt(template, 'spec'), 'containers');

  const strategy = objectAt(spec, 'strategy');
  const rolling = strategy.type === undefined || strategy.type === 'RollingUpdate';
  const annotations = objectAt(objectAt(template, 'metadata'), 'annotations');
  const upToDate =
    sameJson(desiredContainers, containers) &&
    annotations[ANNOTATIONS.configHash] === target.hash &&
    annotations[ANNOTATIONS.secretsHash] === target.secretsHash &&
    (!rolling || objectAt(strategy, 'rollingUpdate').maxSurge === '100%');

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
        spec: { containers: desiredContainers },
      },
    },
  };
  return { ok: true, upToDate, applyConfiguration };
}

/**
 * The containers the pod template will have once the operator's changes are in (the gateway container with
 * its env and envFrom as planned, the others as they are), and its init containers: what the pods will read
 * Secrets from. Pure.
 */
export function podContainers(
  live: JsonObject,
  target: Omit<DeploymentTarget, 'secretsHash'>,
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
  if (current === undefined) {
    return {
      ok: false,
      reason: 'ContainerNotFound',
      message:
        target.container === undefined
          ? 'the target Deployment has no container'
          : `the target Deployment has no container named "${target.container}"`,
    };
  }
  return {
    ok: true,
    containers: containers.map((container, i) =>
      i === index ? gatewayContainer(container, target) : container,
    ),
    initContainers: containersOf(podSpec, 'initContainers'),
  };
}

function containersOf(podSpec: JsonObject, field: 'containers' | 'initContainers'): JsonObject[] {
  const list = podSpec[field];
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

function gatewayContainer(container: JsonObject, target: Omit<DeploymentTarget, 'secretsHash'>): JsonObject {
  const ownConfigMap = `${target.authConfigName}-env-`;
  const envFrom = (Array.isArray(container.envFrom) ? container.envFrom : []).filter((source) => {
    const name = isJsonObject(source) ? objectAt(source, 'configMapRef').name : undefined;
    return !(typeof name === 'string' && name.startsWith(ownConfigMap));
  });
  const secretNames = new Set(target.secretEnv.map((entry) => entry.name));
  const plainNames = new Set(target.plainNames);
  const env = (Array.isArray(container.env) ? container.env : []).filter((entry) => {
    if (!isJsonObject(entry) || typeof entry.name !== 'string') return true;
    if (secretNames.has(entry.name) || plainNames.has(entry.name)) return false;
    const fromSecret = isJsonObject(entry.valueFrom) && isJsonObject(entry.valueFrom.secretKeyRef);
    return !(fromSecret && GATEWAY_VARIABLES.has(entry.name));
  });
  const secretEnv: Json[] = target.secretEnv.map((entry) => ({
    name: entry.name,
    valueFrom: {
      secretKeyRef: { name: entry.valueFrom.secretKeyRef.name, key: entry.valueFrom.secretKeyRef.key },
    },
  }));
  const result: JsonObject = {
    ...container,
    envFrom: [...envFrom, { configMapRef: { name: target.configMapName } }],
  };
  const allEnv = [...env, ...secretEnv];
  if (allEnv.length > 0) result.env = allEnv;
  else delete result.env;
  return result;
}

function objectAt(value: JsonObject, key: string): JsonObject {
  const member = value[key];
  return isJsonObject(member) ? member : {};
}
