/** Turns a Kubernetes REST path into the resource, namespace, name and subresource it addresses. */
import type { ResourceRegistry } from './resources.ts';
import { KubeError } from './status.ts';
import type { ResourceType } from './types.ts';

export interface ResourceRequest {
  resource: ResourceType;
  /** Undefined for an all-namespaces list or watch (`/api/v1/configmaps`). */
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

/** `/api/v1/...` or `/apis/{group}/{version}/...`, then `namespaces/{ns}/{plural}[/{name}[/{sub}]]` or `{plural}`. */
export function parseResourcePath(pathname: string, registry: ResourceRegistry): ResourceRequest | undefined {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api') {
    group = '';
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  // `/api/v1/namespaces/{name}/status` (and `/finalize`) address the Namespace itself, not a collection in it.
  const namespaceSubresource =
    group === '' && rest.length === 3 && ['status', 'finalize'].includes(rest[2] ?? '');
  if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSubresource) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = rest;
  if (!plural || extra.length > 0) return undefined;
  const resource = registry.find(group, version, plural);
  if (!resource) {
    throw new KubeError(
      404,
      `the server could not find the requested resource (${group}/${version} ${plural})`,
    );
  }
  if (name !== undefined && namespace === undefined && resource.namespaced) return undefined;
  if (namespace !== undefined && !resource.namespaced) return undefined;
  return { resource, namespace, name, subresource };
}
