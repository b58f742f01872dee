/**
 * The API calls of `gatehouse rollout`: read one AuthConfig, merge-patch it. Through the generic custom-objects
 * client as wire JSON, like the reconciler (operator/src/reconcile/kube-client.ts), so no field is lost on the
 * way. RBAC: get and patch on authconfigs.gatehouse.dev in the namespace.
 */
import {
  ApiException,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION } from '../api/names.ts';
import { isJsonObject, type JsonObject } from '../api/json.ts';

export interface RolloutClient {
  /** The AuthConfig, or undefined when it does not exist. */
  get(namespace: string, name: string): Promise<JsonObject | undefined>;
  /** An RFC 7386 JSON merge patch (`null` removes a key); returns the object as patched. */
  mergePatch(namespace: string, name: string, patch: JsonObject): Promise<JsonObject>;
}

const AUTHCONFIGS = { group: GROUP, version: VERSION, plural: PLURAL } as const;

export function createRolloutClient(kubeConfig: KubeConfig): RolloutClient {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  // The 2.x client sends JSON patch (RFC 6902) unless told otherwise.
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  return {
    async get(namespace, name) {
      try {
        const object: unknown = await custom.getNamespacedCustomObject({ ...AUTHCONFIGS, namespace, name });
        return isJsonObject(object) ? object : undefined;
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) return undefined;
        throw error;
      }
    },
    async mergePatch(namespace, name, patch) {
      const object: unknown = await custom.patchNamespacedCustomObject(
        { ...AUTHCONFIGS, namespace, name, body: patch },
        merge,
      );
      return isJsonObject(object) ? object : {};
    },
  };
}

/** A one-line message for an API error: the Status message the server sent, else the error's own. */
export function apiErrorMessage(error: unknown): string {
  if (error instanceof ApiException) {
    const body: unknown = typeof error.body === 'string' ? parseJson(error.body) : error.body;
    const message = isJsonObject(body) && typeof body.message === 'string' ? body.message : undefined;
    return `HTTP ${error.code}${message !== undefined ? `: ${message}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
