/** The resource types the fake server serves, and how an object's apiVersion is spelled. */
import { NAMESPACE_RESOURCE } from './namespaces.ts';
import type { CustomResourceOptions, ResourceType } from './types.ts';

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
 * Built-in types: those the operator touches (ConfigMaps, Deployments, Events, Leases), and those its install
 * (`operator/deploy/`) creates with kubectl (ServiceAccount and the RBAC kinds).
 */
export const BUILTIN_RESOURCES: readonly ResourceType[] = [
  NAMESPACE_RESOURCE,
  builtin('', 'v1', 'configmaps', 'ConfigMap', { shortNames: ['cm'] }),
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

/** A namespaced custom resource with a status subresource, as a CRD with `subresources.status` declares. */
export function customResource(options: CustomResourceOptions): ResourceType {
  return {
    ...options,
    namespaced: true,
    statusSubresource: true,
    generation: true,
    // The apiextensions strategy refuses unconditional updates of custom objects.
    allowUnconditionalUpdate: false,
    returnDeletedObject: true,
  };
}

export function apiVersionOf(resource: ResourceType): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

/** The registry the HTTP layer resolves `/api/...` and `/apis/...` paths against. */
export class ResourceRegistry {
  readonly all: readonly ResourceType[];

  constructor(resources: readonly ResourceType[]) {
    this.all = resources;
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.all.find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  groupVersions(): string[] {
    return [...new Set(this.all.map(apiVersionOf))];
  }
}
