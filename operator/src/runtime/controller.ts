/**
 * The AuthConfig controller: informers feeding the work queue, the queue calling the reconciler. Only the
 * leader runs one; it is created when leadership is gained and stopped when it is lost.
 *
 * Events enqueue keys, never objects (level-based: the reconciler reads the current state itself). Besides the
 * AuthConfigs, the controller watches Deployments and maps each to the AuthConfigs that target it (by
 * `spec.target.name` in the same namespace, or an AuthConfig ownerReference), so a hand edit of the gateway's
 * pod template is put back, and Secrets, mapped to the AuthConfigs whose last reconcile found their target's
 * pods reading them (`ReconcileResult.secrets`), so a rotated Secret rolls the pods (operator/README.md, "Secret
 * rotation"); the Secret informer keeps names only, never data. ConfigMaps are not watched: the operator's RBAC has no `watch` on them, and the
 * env ConfigMaps are immutable and hash-named, so the next reconcile of their AuthConfig recreates one that
 * was deleted.
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, KIND, PLURAL, VERSION } from '../api/names.ts';
import type { ObjectKey, Reconciler } from '../reconcile/types.ts';
import {
  Informer,
  objectKey,
  type InformerOptions,
  type ListResult,
  type WatchedObject,
} from './informer.ts';
import { silentLogger, type RuntimeLogger } from './logger.ts';
import type { OperatorMetrics } from './metrics.ts';
import { keyOf, parseKey, WorkQueue, type BackoffOptions } from './work-queue.ts';

export const CONTROLLER_NAME = 'authconfig';

export interface ControllerOptions {
  kubeConfig: KubeConfig;
  reconciler: Reconciler;
  metrics: OperatorMetrics;
  /** Watch one namespace only; every namespace by default (the ClusterRole of operator/deploy/rbac.yaml). */
  watchNamespace?: string;
  concurrency?: number;
  backoff?: BackoffOptions;
  /** A watch silent for this long is restarted. */
  watchdogMs: number;
  watchTimeoutSeconds?: () => number;
  /** Watch Deployments targeted by AuthConfigs (default true). */
  watchDeployments?: boolean;
  /** Watch the Secrets the targets' pods read (default true). */
  watchSecrets?: boolean;
  log?: RuntimeLogger;
}

export interface Controller {
  /** True once every informer has listed. */
  readonly synced: boolean;
  /** Stops the informers, then lets the reconciles in flight finish. */
  stop(): Promise<void>;
}

/** Starts the informers and the queue. */
export function startController(options: ControllerOptions): Controller {
  const { kubeConfig, metrics } = options;
  const log = options.log ?? silentLogger;
  const secretUsers = new SecretUsers();
  const queue = new WorkQueue({
    name: CONTROLLER_NAME,
    reconcile: async (key) => {
      const result = await options.reconciler.reconcile(key);
      if (result.secrets !== undefined) secretUsers.record(key, result.secrets);
      return result;
    },
    metrics,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
    log,
  });
  const enqueue = (key: string): void => queue.add(parseKey(key));
  const common: CommonInformerOptions = {
    kubeConfig,
    metrics,
    watchdogMs: options.watchdogMs,
    ...(options.watchTimeoutSeconds === undefined
      ? {}
      : { watchTimeoutSeconds: options.watchTimeoutSeconds }),
    log,
  };
  const authConfigs = authConfigInformer(common, options.watchNamespace, enqueue, (key) =>
    secretUsers.forget(key),
  );
  const deployments =
    options.watchDeployments === false
      ? undefined
      : deploymentInformer(common, options.watchNamespace, (deployment) =>
          ownersOf(deployment, authConfigs.cache).forEach(enqueue),
        );

  const secrets =
    options.watchSecrets === false
      ? undefined
      : secretInformer(common, options.watchNamespace, (secret) =>
          secretUsers.usersOf(secret).forEach(enqueue),
        );

  authConfigs.start();
  deployments?.start();
  secrets?.start();
  return {
    get synced() {
      return authConfigs.hasSynced && (deployments?.hasSynced ?? true) && (secrets?.hasSynced ?? true);
    },
    async stop() {
      await Promise.all([authConfigs.stop(), deployments?.stop(), secrets?.stop()]);
      await queue.shutdown();
    },
  };
}

/** The informer options both informers share. */
type CommonInformerOptions = Pick<
  InformerOptions,
  'kubeConfig' | 'metrics' | 'watchdogMs' | 'watchTimeoutSeconds' | 'log'
>;

/**
 * The AuthConfigs' informer: every event and every listed object enqueues its key; a deleted AuthConfig (seen
 * as an event or missing from a relist) also drops its metrics series.
 */
function authConfigInformer(
  common: CommonInformerOptions,
  watchNamespace: string | undefined,
  enqueue: (key: string) => void,
  forget: (key: string) => void,
): Informer {
  const custom = common.kubeConfig.makeApiClient(CustomObjectsApi);
  return new Informer({
    ...common,
    resource: PLURAL,
    watchPath: collectionPath(`/apis/${GROUP}/${VERSION}`, PLURAL, watchNamespace),
    list: async () =>
      toListResult(
        watchNamespace === undefined
          ? await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })
          : await custom.listNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              plural: PLURAL,
              namespace: watchNamespace,
            }),
      ),
    onEvent: (type, object) => {
      const key = objectKey(object);
      if (key === undefined) return;
      if (type === 'DELETED') {
        common.metrics.forget(parseKey(key));
        forget(key);
      }
      enqueue(key);
    },
    onList: (objects, removed) => {
      for (const object of objects) {
        const key = objectKey(object);
        if (key !== undefined) enqueue(key);
      }
      for (const key of removed) {
        common.metrics.forget(parseKey(key));
        forget(key);
        enqueue(key);
      }
    },
  });
}

/** The Deployments' informer: each event and each listed Deployment goes to `onDeployment`. */
function deploymentInformer(
  common: CommonInformerOptions,
  watchNamespace: string | undefined,
  onDeployment: (deployment: WatchedObject) => void,
): Informer {
  const apps = common.kubeConfig.makeApiClient(AppsV1Api);
  return new Informer({
    ...common,
    resource: 'deployments',
    watchPath: collectionPath('/apis/apps/v1', 'deployments', watchNamespace),
    list: async () =>
      toListResult(
        watchNamespace === undefined
          ? await apps.listDeploymentForAllNamespaces()
          : await apps.listNamespacedDeployment({ namespace: watchNamespace }),
      ),
    onEvent: (_type, object) => onDeployment(object),
    onList: (objects) => objects.forEach(onDeployment),
  });
}

/**
 * The Secrets' informer, names only: each event and each listed Secret goes to `onSecret`. The data is dropped
 * before anything keeps the object (the reconciler reads the Secrets it digests itself).
 */
function secretInformer(
  common: CommonInformerOptions,
  watchNamespace: string | undefined,
  onSecret: (secret: WatchedObject) => void,
): Informer {
  const core = common.kubeConfig.makeApiClient(CoreV1Api);
  return new Informer({
    ...common,
    resource: 'secrets',
    watchPath: collectionPath('/api/v1', 'secrets', watchNamespace),
    list: async () =>
      toListResult(
        watchNamespace === undefined
          ? await core.listSecretForAllNamespaces()
          : await core.listNamespacedSecret({ namespace: watchNamespace }),
      ),
    transform: (secret) => ({
      metadata: {
        ...(secret.metadata?.name === undefined ? {} : { name: secret.metadata.name }),
        ...(secret.metadata?.namespace === undefined ? {} : { namespace: secret.metadata.namespace }),
        ...(secret.metadata?.resourceVersion === undefined
          ? {}
          : { resourceVersion: secret.metadata.resourceVersion }),
      },
    }),
    onEvent: (_type, secret) => onSecret(secret),
    onList: (listed, removed) => {
      listed.forEach(onSecret);
      for (const key of removed) {
        const { namespace, name } = parseKey(key);
        onSecret({ metadata: { namespace, name } });
      }
    },
  });
}

/** Which AuthConfig keys read which Secrets (in their own namespace), as their last reconciles found. */
class SecretUsers {
  private readonly byKey = new Map<string, ReadonlySet<string>>();

  record(key: ObjectKey, secrets: readonly string[]): void {
    this.byKey.set(keyOf(key), new Set(secrets));
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }

  /** The keys of the AuthConfigs whose pods read this Secret. */
  usersOf(secret: WatchedObject): string[] {
    const namespace = secret.metadata?.namespace ?? '';
    const name = secret.metadata?.name ?? '';
    const users: string[] = [];
    for (const [key, secrets] of this.byKey) {
      if (parseKey(key).namespace === namespace && secrets.has(name)) users.push(key);
    }
    return users;
  }
}

/** The keys of the AuthConfigs a Deployment belongs to: those that own it and those that target it. */
function ownersOf(deployment: WatchedObject, authConfigs: ReadonlyMap<string, WatchedObject>): string[] {
  const namespace = deployment.metadata?.namespace ?? '';
  const name = deployment.metadata?.name;
  const keys = new Set<string>();
  const owners = (deployment.metadata as { ownerReferences?: Array<{ kind?: string; name?: string }> })
    .ownerReferences;
  for (const owner of owners ?? []) {
    if (owner.kind === KIND && owner.name) keys.add(keyOf({ namespace, name: owner.name }));
  }
  for (const [key, authConfig] of authConfigs) {
    const spec = authConfig.spec as { target?: { name?: string } } | undefined;
    if (authConfig.metadata?.namespace === namespace && spec?.target?.name === name) keys.add(key);
  }
  return [...keys];
}

function collectionPath(prefix: string, plural: string, namespace: string | undefined): string {
  return namespace === undefined ? `${prefix}/${plural}` : `${prefix}/namespaces/${namespace}/${plural}`;
}

/** A list response (typed or custom-object JSON) as items and the list's resourceVersion. */
function toListResult(list: unknown): ListResult {
  const { items, metadata } = list as { items?: WatchedObject[]; metadata?: { resourceVersion?: string } };
  return { items: items ?? [], resourceVersion: metadata?.resourceVersion ?? '' };
}
