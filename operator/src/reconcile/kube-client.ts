import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Event,
  type KubeConfig,
} from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION } from '../api/names.ts';
import type { AuthConfigStatus } from '../api/types.generated.ts';
import type { EnvConfigMap } from '../render/config-map.ts';
import type { StoredConfigMap } from './config-map-history.ts';
import { isJsonObject, type JsonObject } from '../api/json.ts';

/**
 * The API calls one reconcile makes, nothing more (RBAC in operator/deploy/rbac.yaml). Secrets are read only
 * to digest their data for the pod template's secrets-hash annotation. AuthConfigs and the
 * target Deployment are read and written as wire JSON through the generic custom-objects client: the typed
 * models keep only the fields this client version knows (and turn timestamps into Dates), so a container
 * copied through them into an apply configuration could silently lose fields a newer API server has.
 */
export interface KubeClient {
  getAuthConfig(namespace: string, name: string): Promise<JsonObject | undefined>;
  /** PUT to /status with the object's resourceVersion: 409 when the AuthConfig changed meanwhile. */
  replaceAuthConfigStatus(object: JsonObject, status: AuthConfigStatus): Promise<void>;
  listConfigMaps(namespace: string, labelSelector: string): Promise<StoredConfigMap[]>;
  /** Creates the ConfigMap; true when created, false when it already existed. */
  createConfigMap(configMap: EnvConfigMap): Promise<boolean>;
  deleteConfigMap(namespace: string, name: string): Promise<void>;
  getDeployment(namespace: string, name: string): Promise<JsonObject | undefined>;
  /** Server-side apply of the operator's fields, forced; resolves to the Deployment as the server stored it. */
  applyDeployment(namespace: string, name: string, configuration: JsonObject): Promise<JsonObject>;
  /** A Secret's `data` (base64 values, never logged), or undefined when it does not exist. */
  getSecretData(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  createEvent(namespace: string, event: CoreV1Event): Promise<void>;
}

const APPS = { group: 'apps', version: 'v1', plural: 'deployments' } as const;
const AUTHCONFIGS = { group: GROUP, version: VERSION, plural: PLURAL } as const;

export function createKubeClient(kubeConfig: KubeConfig, fieldManager: string): KubeClient {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

  return {
    async getAuthConfig(namespace, name) {
      return asObject(await orMissing(custom.getNamespacedCustomObject({ ...AUTHCONFIGS, namespace, name })));
    },
    async replaceAuthConfigStatus(object, status) {
      const metadata = isJsonObject(object.metadata) ? object.metadata : {};
      await custom.replaceNamespacedCustomObjectStatus({
        ...AUTHCONFIGS,
        namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
        name: typeof metadata.name === 'string' ? metadata.name : '',
        body: { ...object, status },
      });
    },
    async listConfigMaps(namespace, labelSelector) {
      const list = await core.listNamespacedConfigMap({ namespace, labelSelector });
      return list.items.map((item) => ({
        name: item.metadata?.name ?? '',
        ...(item.metadata?.creationTimestamp
          ? { creationTimestamp: new Date(item.metadata.creationTimestamp).toISOString() }
          : {}),
        ...(item.metadata?.resourceVersion ? { resourceVersion: item.metadata.resourceVersion } : {}),
      }));
    },
    async createConfigMap(configMap) {
      const namespace = configMap.metadata.namespace ?? 'default';
      try {
        await core.createNamespacedConfigMap({ namespace, body: configMap });
        return true;
      } catch (error) {
        // Named by its content: one that already exists under this name is this configuration. Checked by
        // reading it, so that a 409 of another kind (a conflict) is not taken for success.
        if (!(error instanceof ApiException && error.code === 409)) throw error;
        const existing = await orMissing(
          core.readNamespacedConfigMap({ namespace, name: configMap.metadata.name }),
        );
        if (existing === undefined) throw error;
        return false;
      }
    },
    async deleteConfigMap(namespace, name) {
      await orMissing(core.deleteNamespacedConfigMap({ namespace, name }));
    },
    async getDeployment(namespace, name) {
      return asObject(await orMissing(custom.getNamespacedCustomObject({ ...APPS, namespace, name })));
    },
    async applyDeployment(namespace, name, configuration) {
      // `force`: the operator is the authority for the fields it applies (operator/README.md, "Field
      // ownership"). Another manager that set one of them (an `envFrom` a chart renders, a hand-edited
      // annotation) would otherwise block every reconcile with a 409 until a human removed it; forced, the
      // operator takes the field back and the other manager loses it. Its configuration holds only its own
      // fields, so force never takes anything the installer owns (the image, probes, other env).
      const stored: unknown = await custom.patchNamespacedCustomObject(
        { ...APPS, namespace, name, body: configuration, fieldManager, force: true },
        apply,
      );
      return asObject(stored) ?? {};
    },
    async getSecretData(namespace, name) {
      const secret = await orMissing(core.readNamespacedSecret({ namespace, name }));
      return secret === undefined ? undefined : { ...secret.data };
    },
    async createEvent(namespace, event) {
      await core.createNamespacedEvent({ namespace, body: event });
    },
  };
}

/** The call's result, or undefined on 404. */
async function orMissing<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return undefined;
    throw error;
  }
}

function asObject(value: unknown): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}
