/** The resource types the fake server serves, and how an object's apiVersion is spelled. */
import { NAMESPACE_RESOURCE } from './namespaces.ts';
import { SECRET_RESOURCE } from './secrets.ts';
import type { ResourceType } from './types.ts';

const builtin = (
  group: string,
  version: string,
  plural: string,
  kind: string,
  extra: Partial<ResourceType> = {},
): ResourceType => ({
  group,
  version,
  plural,
  kind,
  namespaced: true,
  statusSubresource: false,
  generation: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  strategicMergePatch: true,
  ...extra,
});

const RBAC = 'rbac.authorization.k8s.io';

/**
 * Built-in types: those the operator touches (ConfigMaps, Secrets, Deployments, Events, Leases), and those its install
 * (`operator/deploy/`) creates with kubectl (ServiceAccount and the RBAC kinds).
 */
export const BUILTIN_RESOURCES: readonly ResourceType[] = [
  NAMESPACE_RESOURCE,
  builtin('', 'v1', 'configmaps', 'ConfigMap', { shortNames: ['cm'] }),
  SECRET_RESOURCE,
  builtin('', 'v1', 'events', 'Event', { shortNames: ['ev'] }),
  builtin('', 'v1', 'serviceaccounts', 'ServiceAccount', { shortNames: ['sa'] }),
  builtin('apps', 'v1', 'deployments', 'Deployment', {
    statusSubresource: true,
    generation: true,
    shortNames: ['deploy'],
  }),
  builtin('coordination.k8s.io', 'v1', 'leases', 'Lease'),
  builtin(RBAC, 'v1', 'clusterroles', 'ClusterRole', { namespaced: false }),
  builtin(RBAC, 'v1', 'clusterrolebindings', 'ClusterRoleBinding', { namespaced: false }),
  builtin(RBAC, 'v1', 'roles', 'Role'),
  builtin(RBAC, 'v1', 'rolebindings', 'RoleBinding'),
];

export function apiVersionOf(resource: ResourceType): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

/** The registry the HTTP layer resolves `/api/...` and `/apis/...` paths against; CRDs add and remove types. */
export class ResourceRegistry {
  private readonly types: ResourceType[];

  constructor(resources: readonly ResourceType[]) {
    this.types = [...resources];
  }

  get all(): readonly ResourceType[] {
    return this.types;
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  /** Serves a type, or updates the one served under the same group, version and plural in place. */
  register(resource: ResourceType): ResourceType {
    const served = this.find(resource.group, resource.version, resource.plural);
    if (!served) {
      this.types.push(resource);
      return resource;
    }
    Object.assign(served, resource);
    return served;
  }

  /** Stops serving every version of a group's plural (its CRD is gone or no longer serves them). */
  unregister(group: string, plural: string, keepVersions: readonly string[] = []): void {
    for (let i = this.types.length - 1; i >= 0; i -= 1) {
      const type = this.types[i];
      if (type?.group === group && type.plural === plural && !keepVersions.includes(type.version))
        this.types.splice(i, 1);
    }
  }

  groupVersions(): string[] {
    return [...new Set(this.types.map(apiVersionOf))];
  }
}
