/**
 * The field sets server-side apply computes from objects (structured-merge-diff's ToFieldSet and Compare): the
 * fields an applied configuration sets, and what changed between two versions of an object.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  appliedItemStep,
  duplicateEntries,
  fieldStep,
  isAtomicObject,
  itemStep,
  listKind,
  pathKey,
  type FieldSchema,
  type FieldSet,
  type ListKind,
} from './field-paths.ts';
import { builtinFieldSchema } from './builtin-lists.ts';
import { customFieldSchema } from './custom-lists.ts';
import { isObject } from './patch.ts';
import type { JsonObject, ResourceType } from './types.ts';

/** Metadata the server keeps out of every field set (the field manager's strip set). */
const UNTRACKED_METADATA = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'generation',
  'managedFields',
  'resourceVersion',
];

/** Built-in kinds by their Go types, custom resources by their CRD's schema (every list atomic without one). */
export function schemaOf(resource: ResourceType): FieldSchema {
  if (resource.fieldSchema) return resource.fieldSchema;
  if (resource.strategicMergePatch === true) return builtinFieldSchema(resource.kind);
  return customFieldSchema(undefined);
}

/**
 * The part of an object whose fields have owners: no apiVersion, kind or server-set metadata; a write to the
 * main resource of a type with a status subresource never owns `status`, a status write owns only `status`.
 */
export function trackedPart(
  object: JsonObject,
  resource: ResourceType,
  subresource: 'status' | undefined,
): JsonObject {
  if (subresource === 'status') return object.status === undefined ? {} : { status: object.status };
  const { apiVersion: _apiVersion, kind: _kind, metadata, status, ...rest } = object;
  const result: JsonObject = { ...rest };
  if (!resource.statusSubresource && status !== undefined) result.status = status;
  if (isObject(metadata)) {
    const kept = Object.entries(metadata).filter(([key]) => !UNTRACKED_METADATA.includes(key));
    if (kept.length > 0) result.metadata = Object.fromEntries(kept);
  }
  return result;
}

/** The fields an applied configuration sets: its leaves, atomic lists and objects, and each keyed item. */
export function appliedFields(config: JsonObject, schema: FieldSchema): FieldSet {
  const set: FieldSet = new Set();
  walkFields(config, [], schema, set);
  return set;
}

/** The fields a value at `path` sets, as `appliedFields` counts them (full paths). */
export function fieldsAt(value: unknown, path: readonly string[], schema: FieldSchema): FieldSet {
  const set: FieldSet = new Set();
  walkValue(value, [...path], schema, set);
  return set;
}

function walkFields(object: JsonObject, prefix: string[], schema: FieldSchema, set: FieldSet): void {
  for (const [field, value] of Object.entries(object))
    walkValue(value, [...prefix, fieldStep(field)], schema, set);
}

function walkValue(value: unknown, path: string[], schema: FieldSchema, set: FieldSet): void {
  if (Array.isArray(value)) walkList(listKind(path, schema), value, path, schema, set);
  else if (isObject(value) && !isAtomicObject(path, schema) && Object.keys(value).length > 0)
    walkFields(value, path, schema, set);
  else set.add(pathKey(path));
}

function walkList(kind: ListKind, list: unknown[], path: string[], schema: FieldSchema, set: FieldSet) {
  if (kind.type === 'atomic') {
    set.add(pathKey(path));
    return;
  }
  const seen = new Set<string>();
  list.forEach((item, index) => {
    const step = appliedItemStep(kind, item, path, index);
    if (seen.has(step)) throw duplicateEntries(path, step);
    seen.add(step);
    const itemPath = [...path, step];
    if (isObject(item)) walkValue(item, itemPath, schema, set);
    set.add(pathKey(itemPath));
  });
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * Built-in objects are Go structs: these always exist (their zero values), so creating them adds only their
 * fields, never the object itself (no `.: {}` beside them in an Update's fieldsV1).
 */
const ALWAYS_PRESENT = new Set(
  [
    ['spec'],
    ['status'],
    ['spec', 'strategy'],
    ['spec', 'template'],
    ['spec', 'template', 'metadata'],
    ['spec', 'template', 'spec'],
    ['spec', 'template', 'spec', 'containers'],
  ].map((path) => pathKey(path.map(fieldStep))),
);

/** `metadata` itself has no owner (only the fields in it): it is in the field manager's strip set. */
const METADATA = fieldStep('metadata');

interface Walk {
  schema: FieldSchema;
  result: Comparison;
}

/** What changed from `before` to `after`: leaves modified, and every node added or removed. */
export function compareObjects(before: JsonObject, after: JsonObject, schema: FieldSchema): Comparison {
  const walk: Walk = { schema, result: { added: new Set(), modified: new Set(), removed: new Set() } };
  compareFields(before, after, [], walk);
  return walk.result;
}

function compareFields(before: JsonObject, after: JsonObject, prefix: string[], walk: Walk): void {
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    compareValue(before[field], after[field], [...prefix, fieldStep(field)], walk);
  }
}

function compareValue(lhs: unknown, rhs: unknown, path: string[], walk: Walk) {
  const { schema, result } = walk;
  if (lhs === undefined && rhs === undefined) return;
  if (lhs === undefined) return addSubtree(rhs, path, schema, result.added);
  if (rhs === undefined) return addSubtree(lhs, path, schema, result.removed);
  const kind = listKind(path, schema);
  if (Array.isArray(lhs) && Array.isArray(rhs) && kind.type !== 'atomic')
    return compareLists(kind, lhs, rhs, path, walk);
  if (isObject(lhs) && isObject(rhs) && !isAtomicObject(path, schema))
    return compareFields(lhs, rhs, path, walk);
  if (!isDeepStrictEqual(lhs, rhs)) result.modified.add(pathKey(path));
}

function compareLists(kind: ListKind, lhs: unknown[], rhs: unknown[], path: string[], walk: Walk) {
  const before = keyedItems(kind, lhs);
  const after = keyedItems(kind, rhs);
  for (const step of new Set([...before.keys(), ...after.keys()])) {
    compareValue(before.get(step), after.get(step), [...path, step], walk);
  }
}

/** The items of a keyed list or set by their step (an item without its keys by its index). */
export function keyedItems(kind: ListKind, list: readonly unknown[]): Map<string, unknown> {
  return new Map(list.map((item, index) => [itemStep(kind, item) ?? `i:${index}`, item]));
}

/** A node and everything under it, as added or removed. */
export function addSubtree(value: unknown, path: string[], schema: FieldSchema, set: FieldSet): void {
  const key = pathKey(path);
  if (key !== METADATA && !(schema.builtin && ALWAYS_PRESENT.has(key))) set.add(key);
  if (isObject(value) && !isAtomicObject(path, schema)) {
    for (const [child, inner] of Object.entries(value))
      addSubtree(inner, [...path, fieldStep(child)], schema, set);
    return;
  }
  const kind = listKind(path, schema);
  if (!Array.isArray(value) || kind.type === 'atomic') return;
  for (const [step, item] of keyedItems(kind, value)) addSubtree(item, [...path, step], schema, set);
}
