/**
 * Discovery for clients that look resources up (KubernetesObjectApi, kubectl): `/api`, `/api/v1`, `/apis`,
 * `/apis/{g}`, `/apis/{g}/{v}` and `/version`, following the types CRDs add and remove. Only the plain
 * (unaggregated) documents: kubectl asks for aggregated discovery first and falls back to these.
 */
import { apiVersionOf, type ResourceRegistry } from './resources.ts';
import type { JsonObject, ResourceType } from './types.ts';

export function discoveryDocument(pathname: string, registry: ResourceRegistry): JsonObject | undefined {
  const trimmed = pathname.replace(/\/$/, '');
  if (trimmed === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  if (trimmed === '/version') return { major: '1', minor: '34', gitVersion: 'v1.34.0-fake' };
  if (trimmed === '/apis') return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups(registry) };
  const parts = trimmed.split('/').filter(Boolean);
  if (parts[0] === 'apis' && parts.length === 2) {
    const group = groups(registry).find((g) => g.name === parts[1]);
    return group ? { kind: 'APIGroup', apiVersion: 'v1', ...group } : undefined;
  }
  const groupVersion = trimmed.startsWith('/api/') ? trimmed.slice(5) : trimmed.slice(6);
  if (!trimmed.startsWith('/api') || !registry.groupVersions().includes(groupVersion)) return undefined;
  if (trimmed !== `/api/${groupVersion}` && trimmed !== `/apis/${groupVersion}`) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: registry.all.filter((r) => apiVersionOf(r) === groupVersion).flatMap(resourceEntries),
  };
}

interface GroupEntry {
  name: string;
  versions: Array<{ groupVersion: string; version: string }>;
  preferredVersion: { groupVersion: string; version: string };
}

/** The named groups (not the core group) and their versions, in registration order. */
function groups(registry: ResourceRegistry): GroupEntry[] {
  const byName = new Map<string, GroupEntry>();
  for (const resource of registry.all) {
    if (resource.group === '') continue;
    const version = { groupVersion: apiVersionOf(resource), version: resource.version };
    const entry = byName.get(resource.group);
    if (!entry)
      byName.set(resource.group, { name: resource.group, versions: [version], preferredVersion: version });
    else if (!entry.versions.some((v) => v.version === version.version)) entry.versions.push(version);
  }
  return [...byName.values()];
}

function resourceEntries(r: ResourceType): JsonObject[] {
  const main: JsonObject = {
    name: r.plural,
    singularName: r.singular ?? r.kind.toLowerCase(),
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
    ...(r.categories?.length ? { categories: r.categories } : {}),
  };
  if (!r.statusSubresource) return [main];
  return [
    main,
    {
      name: `${r.plural}/status`,
      singularName: '',
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: ['get', 'patch', 'update'],
    },
  ];
}
