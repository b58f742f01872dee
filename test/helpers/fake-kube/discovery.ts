/**
 * Discovery for clients that look resources up (KubernetesObjectApi, kubectl): `/api`, `/apis` (the group
 * list), `/api/v1`, `/apis/{g}/{v}`, `/version`. Only the plain (unaggregated) documents: kubectl asks for
 * aggregated discovery first and falls back to these when the answer is plain `application/json`.
 */
import { apiVersionOf, type ResourceRegistry } from './resources.ts';
import type { JsonObject } from './types.ts';

export function discoveryDocument(pathname: string, registry: ResourceRegistry): JsonObject | undefined {
  const trimmed = pathname.replace(/\/$/, '');
  if (trimmed === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  if (trimmed === '/apis') return groupList(registry);
  if (trimmed === '/version') return { major: '1', minor: '34', gitVersion: 'v1.34.0-fake' };
  const groupVersion = trimmed.startsWith('/api/') ? trimmed.slice(5) : trimmed.slice(6);
  if (!trimmed.startsWith('/api') || !registry.groupVersions().includes(groupVersion)) return undefined;
  if (trimmed !== `/api/${groupVersion}` && trimmed !== `/apis/${groupVersion}`) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: registry.all
      .filter((r) => apiVersionOf(r) === groupVersion)
      .flatMap((r) => [
        {
          name: r.plural,
          singularName: r.kind.toLowerCase(),
          namespaced: r.namespaced,
          kind: r.kind,
          verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
          ...(r.shortNames ? { shortNames: r.shortNames } : {}),
        },
        ...(r.statusSubresource
          ? [
              {
                name: `${r.plural}/status`,
                singularName: '',
                namespaced: r.namespaced,
                kind: r.kind,
                verbs: ['get', 'patch', 'update'],
              },
            ]
          : []),
      ]),
  };
}

/** `/apis`: every named group with its one version (the core group is at `/api`). */
function groupList(registry: ResourceRegistry): JsonObject {
  const groups = registry
    .groupVersions()
    .filter((groupVersion) => groupVersion.includes('/'))
    .map((groupVersion) => {
      const [name = '', version = ''] = groupVersion.split('/');
      const entry = { groupVersion, version };
      return { name, versions: [entry], preferredVersion: entry };
    });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}
