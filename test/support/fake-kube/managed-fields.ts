/**
 * `metadata.managedFields` (README.md beside this file, "Server-side apply"): who owns which field, per manager,
 * operation (`Apply`, `Update`) and subresource, and the 409 an apply meets when it would change a field another
 * manager owns, as the API server's field manager (structured-merge-diff's Updater) decides them.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  compareSteps,
  describePath,
  fromFieldsV1,
  stepsOf,
  toFieldsV1,
  type FieldSet,
} from './field-paths.ts';
import { compareObjects, schemaOf, trackedPart } from './field-sets.ts';
import { isObject } from './patch.ts';
import { apiVersionOf } from './resources.ts';
import { KubeError } from './status.ts';
import type { JsonObject, KubeObject, ResourceType } from './types.ts';

export type Operation = 'Apply' | 'Update';

/** Who writes, and how: an apply carries the fields of its configuration and may force. */
export interface Ownership {
  manager: string;
  operation: Operation;
  subresource: 'status' | undefined;
  applied?: FieldSet;
  force?: boolean;
}

interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  fields: FieldSet;
}

/** A manager is its name, operation and subresource: an applier and an updater of one name are two managers. */
const identity = (m: { manager: string; operation: Operation; subresource?: string | undefined }) =>
  JSON.stringify([m.manager, m.operation, m.subresource ?? '']);

export function decodeManagedFields(value: unknown): Manager[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((entry) => ({
    manager: typeof entry.manager === 'string' ? entry.manager : '',
    operation: entry.operation === 'Apply' ? 'Apply' : 'Update',
    apiVersion: typeof entry.apiVersion === 'string' ? entry.apiVersion : '',
    ...(typeof entry.subresource === 'string' && entry.subresource !== ''
      ? { subresource: entry.subresource }
      : {}),
    ...(typeof entry.time === 'string' ? { time: entry.time } : {}),
    fields: fromFieldsV1(entry.fieldsV1),
  }));
}

/** The fields a manager applied last time (empty when it never applied). */
export function lastApplied(
  object: KubeObject,
  manager: string,
  subresource: 'status' | undefined,
): FieldSet {
  const self = identity({ manager, operation: 'Apply', subresource });
  return (
    decodeManagedFields(object.metadata.managedFields).find((m) => identity(m) === self)?.fields ?? new Set()
  );
}

/** Every field some manager other than this applier owns. */
export function ownedByOthers(
  object: KubeObject,
  manager: string,
  subresource: 'status' | undefined,
): FieldSet {
  const self = identity({ manager, operation: 'Apply', subresource });
  const others = decodeManagedFields(object.metadata.managedFields).filter((m) => identity(m) !== self);
  return new Set(others.flatMap((m) => [...m.fields]));
}

/**
 * `metadata.managedFields` after a write from `before` (undefined for a create) to `after`. The writer owns what
 * it applied (Apply) or what it changed on top of what it owned (Update); other managers lose what the write
 * changed or removed. An apply that changes another manager's field is a 409 unless forced.
 */
export function managedFieldsAfter(
  resource: ResourceType,
  before: KubeObject | undefined,
  after: KubeObject,
  ownership: Ownership,
): JsonObject[] {
  const base = decodeManagedFields(after.metadata.managedFields ?? before?.metadata.managedFields);
  const sub = ownership.subresource;
  const changes = compareObjects(
    trackedPart(before ?? {}, resource, sub),
    trackedPart(after, resource, sub),
    schemaOf(resource),
  );
  const changed = new Set([...changes.modified, ...changes.added]);
  const self = identity(ownership);
  const others = base.filter((m) => identity(m) !== self);
  const conflicts = others
    .map((m) => ({ manager: m, paths: [...m.fields].filter((path) => changed.has(path)) }))
    .filter((c) => c.paths.length > 0);
  if (ownership.operation === 'Apply' && ownership.force !== true && conflicts.length > 0)
    throw applyConflict(conflicts);
  const kept = others.map((m) => ({
    ...m,
    fields: new Set([...m.fields].filter((path) => !changed.has(path) && !changes.removed.has(path))),
  }));
  const previous = base.find((m) => identity(m) === self)?.fields ?? new Set<string>();
  const fields =
    ownership.operation === 'Apply' && ownership.applied
      ? ownership.applied
      : new Set([...[...previous].filter((path) => !changes.removed.has(path)), ...changed]);
  const writer: Manager = {
    manager: ownership.manager,
    operation: ownership.operation,
    apiVersion: apiVersionOf(resource),
    ...(sub ? { subresource: sub } : {}),
    time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    fields,
  };
  return encode([...kept, writer].filter((m) => m.fields.size > 0));
}

/** Entries in the server's order: by operation (Apply first), time, manager, subresource. */
function encode(managers: Manager[]): JsonObject[] {
  const order = (m: Manager) => [m.operation, m.time ?? '', m.manager, m.subresource ?? ''];
  return [...managers]
    .sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      const index = x.findIndex((value, i) => value !== y[i]);
      return index === -1 ? 0 : (x[index] as string) < (y[index] as string) ? -1 : 1;
    })
    .map((m) => ({
      manager: m.manager,
      operation: m.operation,
      apiVersion: m.apiVersion,
      ...(m.time ? { time: m.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(m.fields),
      ...(m.subresource ? { subresource: m.subresource } : {}),
    }));
}

/** Equal but for the entries' times: a write that changes nothing else keeps the old times (and is a no-op). */
export function sameIgnoringTime(a: unknown, b: unknown): boolean {
  const strip = (value: unknown): unknown =>
    Array.isArray(value)
      ? (value as unknown[]).map((entry) => (isObject(entry) ? { ...entry, time: undefined } : entry))
      : value;
  return isDeepStrictEqual(strip(a), strip(b));
}

/** How the server names a manager in a conflict: an updater with the apiVersion it wrote. */
function describeManager(m: Manager): string {
  const sub = m.subresource ? ` with subresource ${JSON.stringify(m.subresource)}` : '';
  const version = m.operation === 'Update' ? ` using ${m.apiVersion}` : '';
  return `${JSON.stringify(m.manager)}${sub}${version}`;
}

function applyConflict(conflicts: Array<{ manager: Manager; paths: string[] }>): KubeError {
  const byPath = (a: string, b: string) => {
    const [x, y] = [stepsOf(a), stepsOf(b)];
    const index = x.findIndex((step, i) => step !== y[i]);
    if (index === -1) return x.length - y.length;
    return index >= y.length ? 1 : compareSteps(x[index] as string, y[index] as string);
  };
  const groups = [...conflicts]
    .sort((a, b) => (a.manager.manager < b.manager.manager ? -1 : 1))
    .map((c) => ({
      who: describeManager(c.manager),
      paths: [...c.paths].sort(byPath).map((p) => describePath(stepsOf(p))),
    }));
  const causes = groups.flatMap((g) =>
    g.paths.map((field) => ({ type: 'FieldManagerConflict', message: `conflict with ${g.who}`, field })),
  );
  const message =
    causes.length === 1
      ? `Apply failed with 1 conflict: conflict with ${groups[0]?.who}: ${causes[0]?.field}`
      : `Apply failed with ${causes.length} conflicts: ${groups
          .map((g) => [`conflicts with ${g.who}:`, ...g.paths.map((p) => `- ${p}`)].join('\n'))
          .join('\n')}`;
  return new KubeError(409, message, 'Conflict', { causes });
}
