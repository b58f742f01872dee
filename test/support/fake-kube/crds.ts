/**
 * CustomResourceDefinitions served through the API as on a real cluster: creating one validates it, then (on the
 * next turn, as the naming and establishing controllers do) sets `NamesAccepted` and `Established` and serves its
 * types; deleting one marks it Terminating and then removes every object of its types, the types and the CRD.
 */
import { crdSchemaFor, type CrdDocument, type CrdVersion } from './crd-document.ts';
import { validateCrd } from './crd-validation.ts';
import { customFieldSchema } from './custom-lists.ts';
import { customObjectAdmission } from './schema/admission.ts';
import type { ResourceRegistry } from './resources.ts';
import { internalWrite, type ObjectStore } from './store.ts';
import type { KubeObject, ResourceType } from './types.ts';

const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export const CRD_RESOURCE: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  statusSubresource: true,
  generation: true,
  // The apiextensions strategy refuses unconditional updates of CRDs, as of custom objects.
  allowUnconditionalUpdate: false,
  returnDeletedObject: true,
  prepareForCreate(object) {
    const versions: CrdVersion[] = (object.spec as CrdDocument['spec'] | undefined)?.versions ?? [];
    const storage = versions.find((v) => v.storage)?.name;
    object.status = { acceptedNames: { kind: '', plural: '' }, storedVersions: storage ? [storage] : [] };
  },
  admit(next, existing) {
    validateCrd(next as unknown as CrdDocument, existing as unknown as CrdDocument | undefined);
    return next;
  },
};

/** The resource types a CRD serves: one per served version, validated against that version's schema. */
export function customResourceTypes(crd: CrdDocument): ResourceType[] {
  const { group, names, scope } = crd.spec;
  return crd.spec.versions
    .filter((version) => version.served)
    .map((version) => ({
      group,
      version: version.name,
      plural: names.plural,
      kind: names.kind,
      singular: names.singular ?? names.kind.toLowerCase(),
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      namespaced: scope === 'Namespaced',
      statusSubresource: version.subresources?.status !== undefined,
      generation: true,
      // The apiextensions strategy refuses unconditional updates of custom objects.
      allowUnconditionalUpdate: false,
      returnDeletedObject: true,
      admit: customObjectAdmission(names.kind, group, version.name, crdSchemaFor(crd, version.name)),
      fieldSchema: customFieldSchema(crdSchemaFor(crd, version.name)),
    }));
}

const condition = (type: string, reason: string, message: string) => ({
  type,
  status: 'True',
  lastTransitionTime: now(),
  reason,
  message,
});

/** The controllers of a real apiextensions server that the fake needs: naming, establishing, finalizing. */
export class CrdLifecycle {
  private readonly store: ObjectStore;
  private readonly registry: ResourceRegistry;
  private readonly pending = new Set<Promise<void>>();
  /** Called when a type stops being served, so the server can end the watches on it. */
  private readonly onRemoved: (group: string, plural: string) => void;

  constructor(
    store: ObjectStore,
    registry: ResourceRegistry,
    onRemoved: (group: string, plural: string) => void,
  ) {
    this.store = store;
    this.registry = registry;
    this.onRemoved = onRemoved;
    store.subscribe((event) => {
      if (event.resource !== CRD_RESOURCE || event.type === 'DELETED') return;
      const name = event.object.metadata.name ?? '';
      this.later(() => this.sync(name));
    });
  }

  /** Installs a CRD at start-up, served before `FakeKube.start` returns (validated like a request). */
  install(document: unknown): void {
    const created = this.store.create(CRD_RESOURCE, '', document, internalWrite());
    this.sync(created.metadata.name ?? '');
  }

  /**
   * DELETE of a CRD: the first call marks it Terminating and answers with it; the finalizer then deletes every
   * object of its types (each with its watch event), stops serving them and removes the CRD.
   */
  delete(name: string): KubeObject {
    const existing = this.store.get(CRD_RESOURCE, '', name);
    if (existing.metadata.deletionTimestamp !== undefined) return existing;
    const terminating = this.store.mutate(CRD_RESOURCE, '', name, (object) => {
      object.metadata.deletionTimestamp = now();
      object.metadata.finalizers = [...new Set([...(object.metadata.finalizers ?? []), CLEANUP_FINALIZER])];
      const status = (object.status ?? {}) as { conditions?: unknown[] };
      status.conditions = [
        ...(status.conditions ?? []).filter((c) => (c as { type?: string }).type !== 'Terminating'),
        condition(
          'Terminating',
          'InstanceDeletionPending',
          'CustomResourceDefinition marked for deletion; instance deletion will begin soon',
        ),
      ];
      object.status = status;
    });
    this.later(() => this.finalize(name));
    return terminating;
  }

  /** Waits for scheduled controller work (for close()). */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private later(task: () => void): void {
    const run = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.pending.delete(run);
      task();
    });
    this.pending.add(run);
  }

  /** Serves the CRD's types as its spec now says, and marks it established. */
  private sync(name: string): void {
    let crd: KubeObject;
    try {
      crd = this.store.get(CRD_RESOURCE, '', name);
    } catch {
      return;
    }
    if (crd.metadata.deletionTimestamp !== undefined) return;
    const document = crd as unknown as CrdDocument;
    const types = customResourceTypes(document);
    this.registry.unregister(
      document.spec.group,
      document.spec.names.plural,
      types.map((t) => t.version),
    );
    for (const type of types) this.registry.register(type);
    this.store.mutate(CRD_RESOURCE, '', name, (object) => {
      const status = (object.status ?? {}) as {
        conditions?: Array<{ type?: string }>;
        acceptedNames?: unknown;
      };
      status.acceptedNames = acceptedNames(document);
      const kept = (status.conditions ?? []).filter(
        (c) => c.type !== 'NamesAccepted' && c.type !== 'Established',
      );
      const previous = (type: string) => status.conditions?.find((c) => c.type === type);
      status.conditions = [
        previous('NamesAccepted') ?? condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
        previous('Established') ??
          condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
        ...kept,
      ];
      object.status = status;
    });
  }

  private finalize(name: string): void {
    let crd: CrdDocument;
    try {
      crd = this.store.get(CRD_RESOURCE, '', name) as unknown as CrdDocument;
    } catch {
      return;
    }
    const { group, names } = crd.spec;
    const type = this.registry.all.find((r) => r.group === group && r.plural === names.plural);
    if (type) {
      for (const object of this.store.list(type, undefined)) {
        this.store.delete(type, object.metadata.namespace ?? '', object.metadata.name ?? '');
      }
    }
    this.registry.unregister(group, names.plural);
    this.onRemoved(group, names.plural);
    this.store.delete(CRD_RESOURCE, '', name);
  }
}

function acceptedNames(crd: CrdDocument): Record<string, unknown> {
  const { names } = crd.spec;
  return {
    plural: names.plural,
    singular: names.singular ?? names.kind.toLowerCase(),
    ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    ...(names.categories?.length ? { categories: names.categories } : {}),
  };
}
