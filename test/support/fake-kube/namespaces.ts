/**
 * Namespaces as objects, with the lifecycle a real API server gives them: the NamespaceLifecycle admission
 * (a namespaced object can only be created in a namespace that exists and is not terminating) and deletion
 * in two steps (Terminating, then the namespace controller removes every object in it and the namespace).
 */
import type { ObjectStore } from './store.ts';
import { KubeError, notFound } from './status.ts';
import type { KubeObject, ResourceType } from './types.ts';

/** Namespaces a fresh cluster has; the first three cannot be deleted (403), as on a real server. */
export const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;
const IMMORTAL = new Set(['default', 'kube-system', 'kube-public']);

/** The label the real server puts on every namespace (since 1.21), equal to its name. */
const NAME_LABEL = 'kubernetes.io/metadata.name';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const NAMESPACE_RESOURCE: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
  statusSubresource: true,
  generation: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
  strategicMergePatch: true,
  shortNames: ['ns'],
  prepareForCreate(object) {
    const name = object.metadata.name ?? '';
    checkName(name);
    const spec = (object.spec ?? {}) as { finalizers?: string[] };
    object.spec = { ...spec, finalizers: spec.finalizers?.length ? spec.finalizers : ['kubernetes'] };
    object.status = { phase: 'Active' };
    object.metadata.labels = { ...object.metadata.labels, [NAME_LABEL]: name };
  },
  prepareForUpdate(next, existing) {
    next.spec = existing.spec;
    next.metadata.labels = { ...next.metadata.labels, [NAME_LABEL]: existing.metadata.name ?? '' };
  },
};

function checkName(name: string): void {
  const problems = [
    ...(name.length > 63 ? ['must be no more than 63 characters'] : []),
    ...(DNS_LABEL.test(name)
      ? []
      : [
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ]),
  ];
  if (problems.length === 0) return;
  const message = `metadata.name: Invalid value: ${JSON.stringify(name)}: ${problems.join(', ')}`;
  throw new KubeError(422, `Namespace ${JSON.stringify(name)} is invalid: ${message}`, 'Invalid', {
    name,
    kind: 'Namespace',
    causes: [
      {
        reason: 'FieldValueInvalid',
        message: message.slice('metadata.name: '.length),
        field: 'metadata.name',
      },
    ],
  });
}

const qualified = (resource: ResourceType): string =>
  resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;

export class NamespaceLifecycle {
  private readonly store: ObjectStore;
  /** Namespaces whose content removal is scheduled, so close() can wait for it. */
  private readonly pending = new Set<Promise<void>>();
  /** While set, deleted namespaces stay Terminating (a cluster whose namespace controller lags or is absent). */
  private held: string[] | undefined;

  constructor(store: ObjectStore) {
    this.store = store;
    for (const name of INITIAL_NAMESPACES) store.create(NAMESPACE_RESOURCE, '', { metadata: { name } });
    store.namespaceGuard = (resource, namespace, name) => this.admitCreate(resource, namespace, name);
  }

  /** NamespaceLifecycle admission for a create: 404 when the namespace is missing, 403 while it terminates. */
  private admitCreate(resource: ResourceType, namespace: string, name: string): void {
    let object: KubeObject;
    try {
      object = this.store.get(NAMESPACE_RESOURCE, '', namespace);
    } catch {
      throw notFound('namespaces', namespace, '');
    }
    if ((object.status as { phase?: string } | undefined)?.phase !== 'Terminating') return;
    const message = `unable to create new content in namespace ${namespace} because it is being terminated`;
    throw new KubeError(403, `${qualified(resource)} "${name}" is forbidden: ${message}`, 'Forbidden', {
      name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.plural,
      causes: [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ],
    });
  }

  /**
   * DELETE of a namespace: the first call marks it Terminating and answers with it; the namespace controller
   * (here, a task on the next turn of the event loop) then deletes every object in it, each with its watch
   * event, and finally the namespace. A second DELETE while it terminates is a 409, as on a real server.
   */
  delete(name: string): KubeObject {
    if (IMMORTAL.has(name)) {
      throw new KubeError(
        403,
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        'Forbidden',
        {
          name,
          kind: 'namespaces',
        },
      );
    }
    const existing = this.store.get(NAMESPACE_RESOURCE, '', name);
    if (existing.metadata.deletionTimestamp !== undefined) {
      throw new KubeError(
        409,
        `Operation cannot be fulfilled on namespaces "${name}": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.`,
        'Conflict',
        { name, kind: 'namespaces' },
      );
    }
    const terminating = this.store.mutate(NAMESPACE_RESOURCE, '', name, (object) => {
      object.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      object.metadata.deletionGracePeriodSeconds = 0;
      object.status = { phase: 'Terminating' };
    });
    if (this.held) this.held.push(name);
    else this.schedule(name);
    return terminating;
  }

  /** Deleted namespaces stay Terminating until `release()`, as when the namespace controller lags. */
  hold(): void {
    this.held ??= [];
  }

  /** Lets the namespace controller remove the namespaces deleted while held. */
  release(): void {
    const names = this.held ?? [];
    this.held = undefined;
    for (const name of names) this.schedule(name);
  }

  private schedule(name: string): void {
    const task = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.pending.delete(task);
      this.finalize(name);
    });
    this.pending.add(task);
  }

  /** Waits for scheduled namespace removals (for close()). */
  async settle(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private finalize(name: string): void {
    for (const { resource, name: objectName } of this.store.contentsOf(name)) {
      this.store.delete(resource, name, objectName);
    }
    this.store.delete(NAMESPACE_RESOURCE, '', name);
  }
}
