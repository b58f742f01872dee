/**
 * The object side of server-side apply: an applied configuration merged into the live object (objects field by
 * field, keyed lists item by item in structured-merge-diff's order, sets as sets, other lists whole), and the
 * fields the manager stopped applying removed when no manager owns them any more.
 */
import {
  appliedItemStep,
  isAtomicObject,
  itemStep,
  listKind,
  pathKey,
  stepsOf,
  type FieldSchema,
  type FieldSet,
  type ListKind,
} from './field-paths.ts';
import { fieldsAt } from './field-sets.ts';
import { isObject } from './patch.ts';
import type { JsonObject } from './types.ts';

/** The live object with the configuration merged in; `null` in the configuration removes a field. */
export function mergeApplied(live: JsonObject, config: JsonObject, schema: FieldSchema): JsonObject {
  return mergeObject(live, config, [], schema);
}

function mergeObject(live: JsonObject, config: JsonObject, path: string[], schema: FieldSchema): JsonObject {
  const result: JsonObject = { ...live };
  for (const [field, value] of Object.entries(config)) {
    if (value === null) delete result[field];
    else result[field] = mergeValue(result[field], value, [...path, `f:${field}`], schema);
  }
  return result;
}

function mergeValue(live: unknown, config: unknown, path: string[], schema: FieldSchema): unknown {
  const kind = listKind(path, schema);
  if (Array.isArray(config) && kind.type !== 'atomic')
    return mergeList(kind, Array.isArray(live) ? live : [], config, path, schema);
  if (isObject(config) && !isAtomicObject(path, schema))
    return mergeObject(isObject(live) ? live : {}, config, path, schema);
  return structuredClone(config);
}

interface Item {
  step: string;
  item: unknown;
}

/**
 * A keyed list or set: the live items in their order, each merged with the applied item of the same key, the
 * applied items not yet live inserted where the configuration places them relative to the shared ones.
 */
function mergeList(kind: ListKind, live: unknown[], config: unknown[], path: string[], schema: FieldSchema) {
  const lhs: Item[] = live.map((item, index) => ({ step: itemStep(kind, item) ?? `i:${index}`, item }));
  const rhs: Item[] = config.map((item, index) => ({ step: appliedItemStep(kind, item, path, index), item }));
  const lhsByStep = new Map(lhs.map((entry) => [entry.step, entry.item]));
  const rhsSteps = new Set(rhs.map((entry) => entry.step));
  const shared = rhs.filter((entry) => lhsByStep.has(entry.step)).map((entry) => entry.step);
  const merge = (entry: Item): unknown => {
    const before = lhsByStep.get(entry.step);
    const itemPath = [...path, entry.step];
    return before === undefined
      ? structuredClone(entry.item)
      : mergeValue(before, entry.item, itemPath, schema);
  };
  const out: unknown[] = [];
  const merged = new Set<string>();
  let next = 0;
  for (let l = 0, r = 0; l < lhs.length || r < rhs.length;) {
    const left = lhs[l];
    const right = rhs[r];
    if (left && right && left.step === right.step) {
      out.push(merge(right));
      merged.add(right.step);
      l += 1;
      r += 1;
      next += 1;
      continue;
    }
    if (
      left &&
      right &&
      rhsSteps.has(left.step) &&
      shared[next] !== undefined &&
      shared[next] !== left.step
    ) {
      l += 1; // a shared item the configuration places later
      continue;
    }
    if (left && (!rhsSteps.has(left.step) || merged.has(left.step))) {
      if (!rhsSteps.has(left.step)) out.push(structuredClone(left.item));
      l += 1;
      continue;
    }
    if (right) {
      out.push(merge(right));
      merged.add(right.step);
      if (shared[next] === right.step) next += 1;
      r += 1;
    }
  }
  return out;
}

/**
 * Removes what the manager applied last time and no longer applies (`last`), unless a manager owns it now
 * (`owned`, the manager's new set included) or holds something under it. Objects and lists a removal empties
 * go too when nobody owns them (built-in kinds serialise empty maps and lists as absent).
 */
export function pruneUnowned(
  merged: JsonObject,
  last: FieldSet,
  owned: FieldSet,
  schema: FieldSchema,
): JsonObject {
  const result = structuredClone(merged);
  const candidates = new Set([...last].filter((path) => !owned.has(path)));
  const ordered = [...candidates].sort((a, b) => stepsOf(a).length - stepsOf(b).length);
  for (const path of ordered) {
    const steps = stepsOf(path);
    const located = locate(result, steps, schema);
    if (!located || !subtreeUnowned(located.value, steps, candidates, schema)) continue;
    located.remove();
    if (schema.builtin) dropEmptyParents(result, steps.slice(0, -1), owned, schema);
  }
  return result;
}

/** Every field under the node (the node included) is one the manager gave up and nobody else owns. */
function subtreeUnowned(value: unknown, steps: string[], candidates: FieldSet, schema: FieldSchema) {
  let fields: FieldSet;
  try {
    fields = fieldsAt(value, steps, schema);
  } catch {
    return false; // a keyed item without its key, or two of one key: left alone
  }
  return [...fields].every((path) => candidates.has(path));
}

interface Located {
  value: unknown;
  remove(): void;
}

/** The node at a path in an object, with a way to remove it; undefined when it is not there. */
function locate(root: JsonObject, steps: string[], schema: FieldSchema): Located | undefined {
  let parent: unknown = root;
  for (const [index, step] of steps.entries()) {
    const last = index === steps.length - 1;
    if (step.startsWith('f:')) {
      if (!isObject(parent) || !(step.slice(2) in parent)) return undefined;
      const name = step.slice(2);
      if (last) return { value: parent[name], remove: () => delete (parent as JsonObject)[name] };
      parent = parent[name];
      continue;
    }
    if (!Array.isArray(parent)) return undefined;
    const list: unknown[] = parent;
    const position = findItem(list, listKind(steps.slice(0, index), schema), step);
    if (position === -1) return undefined;
    if (last) return { value: list[position], remove: () => list.splice(position, 1) };
    parent = list[position];
  }
  return undefined;
}

function findItem(list: unknown[], kind: ListKind, step: string): number {
  if (step.startsWith('i:')) return Number(step.slice(2));
  return list.findIndex((item) => itemStep(kind, item) === step);
}

function dropEmptyParents(root: JsonObject, steps: string[], owned: FieldSet, schema: FieldSchema): void {
  for (let depth = steps.length; depth > 0; depth -= 1) {
    const path = steps.slice(0, depth);
    const located = locate(root, path, schema);
    const value = located?.value;
    const empty =
      (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);
    if (!located || !empty || owned.has(pathKey(path))) return;
    located.remove();
  }
}
