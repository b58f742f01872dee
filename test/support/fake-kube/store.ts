/**
 * The object store: one global resourceVersion counter, per-type strategies (generation, status subresource,
 * immutable ConfigMaps), optimistic concurrency, and the retained window of changes that watches resume from.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { mergeApplied, pruneUnowned } from './apply.ts';
import { appliedFields, schemaOf, trackedPart } from './field-sets.ts';
import {
  lastApplied,
  managedFieldsAfter,
  ownedByOthers,
  sameIgnoringTime,
  type Ownership,
} from './managed-fields.ts';
import { isObject, jsonPatch, mergePatch } from './patch.ts';
import { apiVersionOf } from './resources.ts';
import { conflict, KubeError, notFound } from './status.ts';
import { strategicMergePatch } from './strategic-merge.ts';
import type { ChangeEvent, JsonObject, KubeObject, ResourceType, WriteContext } from './types.ts';

export type Subresource = 'status' | undefined;

/** A write context for the server's own writes (start-up installs, controllers): no request, no warnings. */
export function internalWrite(subresource?: Subresource): WriteContext {
  return { fieldValidation: 'Ignore', subresource, warnings: [] };
}

export type PatchKind = 'merge' | 'strategic' | 'json' | 'apply';

/** Sets `metadata.managedFields`, left out when empty as the server serialises it. */
function setManagedFields(object: KubeObject, entries: unknown[]): void {
  if (entries.length === 0) delete object.metadata.managedFields;
  else object.metadata.managedFields = entries;
}

/** An update-style write (create, PUT, merge, strategic and JSON patches) owns what it changes. */
function updater(write: WriteContext): Ownership | undefined {
  if (write.manager === undefined) return undefined;
  return { manager: write.manager, operation: 'Update', subresource: write.subresource };
}

type Listener = (event: ChangeEvent) => void;

const keyOf = (resource: ResourceType, namespace: string, name: string): string =>
  `${resource.group}/${resource.plural}/${namespace}/${name}`;

/** Checks a namespaced create (and an apply that creates) against the namespace lifecycle; throws to refuse. */
export type NamespaceGuard = (resource: ResourceType, namespace: string, name: string) => void;

interface Entry {
  resource: ResourceType;
  object: KubeObject;
}

/** What generation counts: everything outside metadata and status (the spec, a ConfigMap's data...). */
function specPart(object: KubeObject): JsonObject {
  const { metadata: _metadata, status: _status, apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return rest;
}

function withMetadata(object: JsonObject): KubeObject {
  return { ...object, metadata: isObject(object.metadata) ? object.metadata : {} };
}

export class ObjectStore {
  private revision = 0;
  /** Changes at or below this resourceVersion are gone from the window: resuming there is 410 Gone. */
  private compactedRevision = 0;
  private readonly objects = new Map<string, Entry>();
  /** Set by the server: refuses creates in a namespace that does not exist or is terminating. */
  namespaceGuard: NamespaceGuard | undefined;
  private readonly history: ChangeEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly window: number;

  constructor(window: number) {
    this.window = window;
  }

  get resourceVersion(): number {
    return this.revision;
  }

  get oldestResumable(): number {
    return this.compactedRevision;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Changes after `resourceVersion` still in the window, oldest first. */
  changesSince(resourceVersion: number): ChangeEvent[] {
    return this.history.filter((event) => event.resourceVersion > resourceVersion);
  }

  /** Forget every retained change, as etcd compaction does: resuming from an older resourceVersion gets 410. */
  compact(): void {
    this.history.length = 0;
    this.compactedRevision = this.revision;
  }

  get(resource: ResourceType, namespace: string, name: string): KubeObject {
    const found = this.objects.get(keyOf(resource, namespace, name));
    if (!found) throw notFound(resource.plural, name, resource.group);
    return structuredClone(found.object);
  }

  list(resource: ResourceType, namespace: string | undefined): KubeObject[] {
    const prefix = `${resource.group}/${resource.plural}/${namespace === undefined ? '' : `${namespace}/`}`;
    return [...this.objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .map(([, entry]) => structuredClone(entry.object))
      .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  }

  /** Every object in a namespace, of every type, for the namespace's deletion. */
  contentsOf(namespace: string): Array<{ resource: ResourceType; name: string }> {
    return [...this.objects.values()]
      .filter((entry) => entry.resource.namespaced && entry.object.metadata.namespace === namespace)
      .map((entry) => ({ resource: entry.resource, name: entry.object.metadata.name ?? '' }));
  }

  create(
    resource: ResourceType,
    namespace: string,
    body: unknown,
    write: WriteContext = internalWrite(),
    applied?: Ownership,
  ): KubeObject {
    const object = this.checkBody(resource, namespace, body);
    const meta = object.metadata;
    if (!meta.name && meta.generateName)
      meta.name = `${meta.generateName}${randomBytes(3).toString('hex').slice(0, 5)}`;
    if (!meta.name) throw new KubeError(422, `${resource.kind} "" is invalid: metadata.name: Required value`);
    if (meta.resourceVersion) {
      throw new KubeError(400, 'resourceVersion should not be set on objects to be created', 'BadRequest');
    }
    if (resource.namespaced) this.namespaceGuard?.(resource, namespace, meta.name);
    // Creating through the main resource never sets status when a status subresource exists.
    if (resource.statusSubresource) delete object.status;
    object.apiVersion = apiVersionOf(resource);
    object.kind = resource.kind;
    if (resource.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    meta.uid = randomUUID();
    meta.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (resource.generation) meta.generation = 1;
    else delete meta.generation;
    resource.prepareForCreate?.(object);
    // Validation comes before storage, so an invalid object is a 422 even when its name is taken.
    const admitted = resource.admit ? resource.admit(object, undefined, write) : object;
    const ownership = applied ?? updater(write);
    if (ownership)
      admitted.metadata.managedFields = managedFieldsAfter(resource, undefined, admitted, ownership);
    const key = keyOf(resource, namespace, meta.name);
    if (this.objects.has(key)) {
      const qualified = resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;
      throw new KubeError(409, `${qualified} "${meta.name}" already exists`, 'AlreadyExists', {
        name: meta.name,
        ...(resource.group === '' ? {} : { group: resource.group }),
        kind: resource.plural,
      });
    }
    return this.commit(resource, key, admitted, undefined);
  }

  /** PUT: a full replacement, preconditioned on metadata.resourceVersion when the body carries one. */
  replace(
    resource: ResourceType,
    namespace: string,
    name: string,
    body: unknown,
    write: WriteContext = internalWrite(),
  ): KubeObject {
    const candidate = this.checkBody(resource, namespace, body, name);
    const existing = this.get(resource, namespace, name);
    const precondition = candidate.metadata.resourceVersion;
    if (!precondition && !resource.allowUnconditionalUpdate) {
      throw new KubeError(
        422,
        `${resource.kind} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
      );
    }
    return this.update(resource, existing, candidate, write, precondition);
  }

  patch(
    resource: ResourceType,
    namespace: string,
    name: string,
    kind: PatchKind,
    body: unknown,
    write: WriteContext,
    fieldManager: string | undefined,
  ): KubeObject {
    if (kind === 'apply') return this.apply(resource, namespace, name, body, write, fieldManager);
    const existing = this.get(resource, namespace, name);
    if (kind === 'json')
      return this.update(resource, existing, withMetadata(jsonPatch(existing, body)), write, undefined);
    if (!isObject(body)) throw new KubeError(400, 'merge patch must be a JSON object');
    const patched = kind === 'strategic' ? strategicMergePatch(existing, body) : mergePatch(existing, body);
    const candidate = withMetadata(patched as JsonObject);
    const precondition = isObject(body.metadata) ? body.metadata.resourceVersion : undefined;
    return this.update(
      resource,
      existing,
      candidate,
      write,
      typeof precondition === 'string' ? precondition : undefined,
    );
  }

  /** A change made by the server itself (a controller, a lifecycle step): no strategy, no preconditions. */
  mutate(resource: ResourceType, namespace: string, name: string, change: (object: KubeObject) => void) {
    const existing = this.get(resource, namespace, name);
    const next = structuredClone(existing);
    change(next);
    if (isDeepStrictEqual(next, existing)) return existing;
    return this.commit(resource, keyOf(resource, namespace, name), next, existing);
  }

  delete(resource: ResourceType, namespace: string, name: string): KubeObject {
    const key = keyOf(resource, namespace, name);
    const existing = this.get(resource, namespace, name);
    this.objects.delete(key);
    this.revision += 1;
    existing.metadata.resourceVersion = String(this.revision);
    this.record({
      type: 'DELETED',
      resource,
      object: existing,
      previous: existing,
      resourceVersion: this.revision,
    });
    return structuredClone(existing);
  }

  /**
   * Server-side apply (README.md beside this file, "Server-side apply"): the configuration merged into the live
   * object, the fields this manager applied last time and no longer applies removed unless another manager owns
   * them, then written with the configuration's fields as the manager's (a 409 on another manager's field).
   */
  private apply(
    resource: ResourceType,
    namespace: string,
    name: string,
    body: unknown,
    write: WriteContext,
    fieldManager: string | undefined,
  ): KubeObject {
    const sub = write.subresource;
    if (!fieldManager) {
      throw new KubeError(
        422,
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      );
    }
    const applied = this.checkBody(resource, namespace, body, name);
    if (applied.metadata.managedFields !== undefined)
      throw new KubeError(400, 'metadata.managedFields must be nil', 'BadRequest');
    const schema = schemaOf(resource);
    const fields = appliedFields(trackedPart(applied, resource, sub), schema);
    const ownership: Ownership = {
      manager: fieldManager,
      operation: 'Apply',
      subresource: sub,
      applied: fields,
      force: write.force === true,
    };
    if (!this.objects.has(keyOf(resource, namespace, name))) {
      if (sub) throw notFound(resource.plural, name, resource.group);
      return this.create(resource, namespace, applied, write, ownership);
    }
    const existing = this.get(resource, namespace, name);
    const owned = new Set([...ownedByOthers(existing, fieldManager, sub), ...fields]);
    const { managedFields: _managedFields, ...appliedMeta } = applied.metadata;
    const merged = mergeApplied(existing, { ...applied, metadata: appliedMeta }, schema);
    const candidate = pruneUnowned(merged, lastApplied(existing, fieldManager, sub), owned, schema);
    return this.update(
      resource,
      existing,
      candidate as KubeObject,
      write,
      applied.metadata.resourceVersion,
      ownership,
    );
  }

  private update(
    resource: ResourceType,
    existing: KubeObject,
    candidate: KubeObject,
    write: WriteContext,
    precondition: string | undefined,
    applied?: Ownership,
  ): KubeObject {
    const sub = write.subresource;
    const name = existing.metadata.name ?? '';
    if (precondition !== undefined && precondition !== existing.metadata.resourceVersion) {
      throw conflict(resource.plural, name);
    }
    let next: KubeObject;
    if (sub === 'status') {
      // A status write changes status only; spec and metadata stay as stored.
      next = structuredClone(existing);
      if (candidate.status === undefined) delete next.status;
      else next.status = candidate.status;
    } else {
      next = candidate;
      if (resource.statusSubresource) {
        // A main-resource write ignores status changes.
        if (existing.status === undefined) delete next.status;
        else next.status = existing.status;
      }
      // Identity fields are the server's, whatever the body says.
      next.metadata = {
        ...next.metadata,
        name,
        uid: existing.metadata.uid,
        creationTimestamp: existing.metadata.creationTimestamp,
      };
      if (resource.namespaced) next.metadata.namespace = existing.metadata.namespace;
      else delete next.metadata.namespace;
      delete next.metadata.generation;
      if (existing.metadata.generation !== undefined) next.metadata.generation = existing.metadata.generation;
      resource.prepareForUpdate?.(next, existing);
      this.checkImmutable(resource, existing, next);
    }
    next.apiVersion = apiVersionOf(resource);
    next.kind = resource.kind;
    next.metadata.resourceVersion = existing.metadata.resourceVersion;
    if (resource.admit) next = resource.admit(next, existing, write);
    this.recordOwnership(resource, existing, next, applied ?? updater(write));
    // Counted after defaulting, so a write that only spells out defaults is no spec change.
    if (sub !== 'status' && resource.generation && !isDeepStrictEqual(specPart(existing), specPart(next))) {
      next.metadata.generation = (existing.metadata.generation ?? 0) + 1;
    }
    // A write that changes nothing keeps the resourceVersion and sends no watch event, like the real server.
    if (isDeepStrictEqual(next, existing)) return existing;
    return this.commit(resource, keyOf(resource, existing.metadata.namespace ?? '', name), next, existing);
  }

  /** The write's managedFields; the old entries' times are kept when nothing else changes. */
  private recordOwnership(
    resource: ResourceType,
    existing: KubeObject,
    next: KubeObject,
    ownership: Ownership | undefined,
  ): void {
    if (!ownership) return;
    const managedFields = managedFieldsAfter(resource, existing, next, ownership);
    const { managedFields: _before, ...restBefore } = existing.metadata;
    const { managedFields: _after, ...restAfter } = next.metadata;
    const stored = existing.metadata.managedFields;
    const before = Array.isArray(stored) ? (stored as unknown[]) : [];
    const unchanged =
      isDeepStrictEqual({ ...existing, metadata: restBefore }, { ...next, metadata: restAfter }) &&
      sameIgnoringTime(managedFields, before);
    setManagedFields(next, unchanged ? before : managedFields);
  }

  private checkImmutable(resource: ResourceType, existing: KubeObject, next: KubeObject): void {
    if (resource.group !== '' || resource.kind !== 'ConfigMap' || existing.immutable !== true) return;
    const fields = ['data', 'binaryData', 'immutable'] as const;
    const changed = fields.filter((field) => !isDeepStrictEqual(existing[field], next[field]));
    if (changed.length > 0) {
      throw new KubeError(
        422,
        `ConfigMap "${existing.metadata.name}" is invalid: ${changed.join(', ')}: Forbidden: field is immutable when \`immutable\` is set`,
      );
    }
  }

  private checkBody(resource: ResourceType, namespace: string, body: unknown, name?: string): KubeObject {
    if (!isObject(body)) throw new KubeError(400, 'the body of the request was in an unknown format');
    const object = structuredClone(body) as KubeObject;
    if (!isObject(object.metadata)) object.metadata = {};
    const meta = object.metadata;
    // A cluster-scoped object's namespace is cleared, as the real server does.
    if (!resource.namespaced) delete meta.namespace;
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      throw new KubeError(
        400,
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    if (name !== undefined && meta.name !== undefined && meta.name !== name) {
      throw new KubeError(400, 'the name of the object does not match the name on the URL');
    }
    if (object.kind !== undefined && object.kind !== resource.kind) {
      throw new KubeError(400, `the kind ${String(object.kind)} does not match ${resource.kind}`);
    }
    return object;
  }

  private commit(
    resource: ResourceType,
    key: string,
    object: KubeObject,
    previous: KubeObject | undefined,
  ): KubeObject {
    this.revision += 1;
    object.metadata.resourceVersion = String(this.revision);
    this.objects.set(key, { resource, object: structuredClone(object) });
    const type = previous ? 'MODIFIED' : 'ADDED';
    this.record({
      type,
      resource,
      object: structuredClone(object),
      previous,
      resourceVersion: this.revision,
    });
    return object;
  }

  private record(event: ChangeEvent): void {
    this.history.push(event);
    while (this.history.length > this.window) {
      const dropped = this.history.shift();
      if (dropped) this.compactedRevision = dropped.resourceVersion;
    }
    for (const listener of this.listeners) listener(event);
  }
}
