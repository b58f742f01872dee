/**
 * How server-side apply merges the lists and objects of the built-in kinds, per kind and path, as the Kubernetes
 * 1.34 Go types declare them (`+listType` / `+listMapKey`, else `patchStrategy=merge` with `patchMergeKey`;
 * `+mapType=atomic`, `+structType=atomic`). A list these tables do not name is atomic, as on a real server for a
 * list without markers.
 */
import type { FieldSchema, ListKind } from './field-paths.ts';

/** A path of field names with `*` for a list's item: `spec.template.spec.containers.*.env`. */
export function typePath(steps: readonly string[]): string {
  return steps.map((step) => (step.startsWith('f:') ? step.slice(2) : '*')).join('.');
}

const map = (...keys: string[]): ListKind => ({ type: 'map', keys });
const BY_NAME = map('name');
const ATOMIC: ListKind = { type: 'atomic' };
/** Ports keyed with their protocol, which the schema defaults to TCP so an item may leave it out. */
const ports = (port: string): ListKind => ({
  type: 'map',
  keys: [port, 'protocol'],
  defaults: { protocol: 'TCP' },
});

/** Container and EphemeralContainer. */
const CONTAINER: Readonly<Record<string, ListKind>> = {
  env: BY_NAME,
  ports: ports('containerPort'),
  volumeMounts: map('mountPath'),
  volumeDevices: map('devicePath'),
};

const POD_SPEC: Readonly<Record<string, ListKind>> = {
  containers: BY_NAME,
  initContainers: BY_NAME,
  ephemeralContainers: BY_NAME,
  volumes: BY_NAME,
  imagePullSecrets: BY_NAME,
  hostAliases: map('ip'),
  tolerations: ATOMIC,
  topologySpreadConstraints: map('topologyKey', 'whenUnsatisfiable'),
  resourceClaims: BY_NAME,
  schedulingGates: BY_NAME,
  ...Object.fromEntries(
    ['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) =>
      Object.entries(CONTAINER).map(([field, kind]) => [`${list}.*.${field}`, kind]),
    ),
  ),
};

/** Objects owned whole in a pod spec: a node selector map, LabelSelector and NodeSelector structs. */
const POD_SPEC_ATOMIC = [
  'nodeSelector',
  'topologySpreadConstraints.*.labelSelector',
  'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution',
];

/** Where each workload kind keeps its pod spec. */
const POD_SPEC_AT: Readonly<Record<string, string>> = {
  Pod: 'spec',
  PodTemplate: 'template.spec',
  Deployment: 'spec.template.spec',
  ReplicaSet: 'spec.template.spec',
  StatefulSet: 'spec.template.spec',
  DaemonSet: 'spec.template.spec',
  Job: 'spec.template.spec',
  ReplicationController: 'spec.template.spec',
  CronJob: 'spec.jobTemplate.spec.template.spec',
};

/** Every kind's metadata, and the conditions of a status (keyed by type wherever the kinds have them). */
const COMMON: Readonly<Record<string, ListKind>> = {
  'metadata.ownerReferences': map('uid'),
  'metadata.finalizers': { type: 'set' },
  'status.conditions': map('type'),
};

const OTHER_LISTS: Readonly<Record<string, Readonly<Record<string, ListKind>>>> = {
  Service: { 'spec.ports': ports('port') },
  ServiceAccount: { secrets: BY_NAME, imagePullSecrets: ATOMIC },
};

/** A `selector` owned whole: a LabelSelector (workloads) or a map of labels marked atomic (Service, RC). */
const SELECTOR_KINDS = new Set([...Object.keys(POD_SPEC_AT), 'Service']);

const prefixed = <T>(prefix: string, entries: Array<[string, T]>): Array<[string, T]> =>
  entries.map(([path, value]) => [`${prefix}.${path}`, value]);

function listsOf(kind: string): Map<string, ListKind> {
  const podSpec = POD_SPEC_AT[kind];
  return new Map([
    ...Object.entries(COMMON),
    ...Object.entries(OTHER_LISTS[kind] ?? {}),
    ...(podSpec ? prefixed(podSpec, Object.entries(POD_SPEC)) : []),
  ]);
}

function atomicObjectsOf(kind: string): Set<string> {
  const podSpec = POD_SPEC_AT[kind];
  return new Set([
    ...(SELECTOR_KINDS.has(kind) ? ['spec.selector'] : []),
    ...(podSpec ? POD_SPEC_ATOMIC.map((path) => `${podSpec}.${path}`) : []),
  ]);
}

/** The field schema of a built-in kind. */
export function builtinFieldSchema(kind: string): FieldSchema {
  const lists = listsOf(kind);
  const atomicObjects = atomicObjectsOf(kind);
  return {
    builtin: true,
    list: (path) => lists.get(typePath(path)) ?? ATOMIC,
    atomicObject: (path) => atomicObjects.has(typePath(path)),
  };
}
