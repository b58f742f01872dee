/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), the subset kubectl's client-side apply sends
 * for the built-in kinds the fake serves (README.md beside this file, "Strategic merge patch"). It is a JSON merge
 * patch, except that lists of objects named below merge element by element on their merge key, lists of strings
 * named below merge as sets, and these directives are understood: `$patch` (`merge`, `replace`, `delete`, on an
 * object or a list element), `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>` and `$retainKeys`.
 * A real server reads merge keys from each type's Go struct tags; the fake knows them by field name, which is the
 * same for every kind it serves. Any other `$` directive is refused with 422.
 */
import { isObject } from './patch.ts';
import { KubeError } from './status.ts';
import type { JsonObject } from './types.ts';

/** Lists of objects merged element by element, by field name → merge key. */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  ports: 'containerPort',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  volumes: 'name',
  imagePullSecrets: 'name',
  secrets: 'name',
  hostAliases: 'ip',
  resourceClaims: 'name',
  ownerReferences: 'uid',
  conditions: 'type',
};

/** Lists of strings merged as sets (a patch adds its values; `$deleteFromPrimitiveList` removes). */
const SET_LISTS = new Set(['finalizers']);

const ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';

function invalid(message: string): KubeError {
  return new KubeError(422, `strategic merge patch: ${message}`);
}

/** Applies a strategic merge patch to `target` and returns the result; `target` is not modified. */
export function strategicMergePatch(target: JsonObject, patch: unknown): JsonObject {
  if (!isObject(patch)) throw new KubeError(400, 'strategic merge patch must be a JSON object');
  const result = mergeObject(target, patch);
  if (result === undefined) throw invalid('a $patch: delete at the top level would delete the object');
  return result;
}

/** Merges `patch` into `original`; undefined when the patch deletes the object (`$patch: delete`). */
function mergeObject(original: JsonObject, patch: JsonObject): JsonObject | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return withoutDirectives(patch);
  if (directive !== undefined && directive !== 'merge')
    throw invalid(`unknown $patch ${JSON.stringify(directive)}`);
  const result: JsonObject = structuredClone(original);
  const orders: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith(ORDER)) orders.push([key.slice(ORDER.length), value]);
    else if (key.startsWith(DELETE_FROM)) deleteFromList(result, key.slice(DELETE_FROM.length), value);
    else if (key.startsWith('$')) throw invalid(`unsupported directive ${key}`);
    else mergeField(result, key, value);
  }
  for (const [field, order] of orders) reorder(result, field, order);
  if (patch.$retainKeys !== undefined) retainKeys(result, patch.$retainKeys);
  return result;
}

function mergeField(result: JsonObject, key: string, value: unknown): void {
  if (value === null) {
    delete result[key];
    return;
  }
  const current = result[key];
  if (isObject(value)) {
    const merged = mergeObject(isObject(current) ? current : {}, value);
    if (merged === undefined) delete result[key];
    else result[key] = merged;
  } else if (Array.isArray(value)) {
    result[key] = mergeList(key, Array.isArray(current) ? current : [], value);
  } else {
    result[key] = structuredClone(value);
  }
}

function mergeList(field: string, current: unknown[], patch: unknown[]): unknown[] {
  const mergeKey = MERGE_KEYS[field];
  if (SET_LISTS.has(field)) return [...current, ...patch.filter((value) => !current.includes(value))];
  if (mergeKey === undefined) return patch.map((item) => (isObject(item) ? withoutDirectives(item) : item));
  if (patch.some((item) => isObject(item) && item.$patch === 'replace' && Object.keys(item).length === 1)) {
    return patch
      .filter((item) => !(isObject(item) && item.$patch === 'replace'))
      .map((item) => structuredClone(item));
  }
  const result = current.map((item) => structuredClone(item));
  for (const item of patch) {
    if (!isObject(item) || item[mergeKey] === undefined) {
      throw invalid(`an element of ${field} has no ${mergeKey}`);
    }
    const index = result.findIndex((existing) => isObject(existing) && existing[mergeKey] === item[mergeKey]);
    if (index === -1) {
      if (item.$patch !== 'delete') result.push(withoutDirectives(item));
      continue;
    }
    const merged = mergeObject(result[index] as JsonObject, item);
    if (merged === undefined) result.splice(index, 1);
    else result[index] = merged;
  }
  return result;
}

/** `$setElementOrder/<field>`: the listed elements come first, in the given order; the others keep theirs. */
function reorder(result: JsonObject, field: string, order: unknown): void {
  const list: unknown = result[field];
  if (!Array.isArray(order) || !Array.isArray(list)) return;
  const items: unknown[] = list;
  const mergeKey = MERGE_KEYS[field];
  const keyOf = (item: unknown): unknown =>
    mergeKey !== undefined && isObject(item) ? item[mergeKey] : item;
  const position = new Map(order.map((item, index) => [keyOf(item), index]));
  const rank = (item: unknown): number => position.get(keyOf(item)) ?? order.length;
  result[field] = items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => rank(a.item) - rank(b.item) || a.index - b.index)
    .map(({ item }) => item);
}

function deleteFromList(result: JsonObject, field: string, values: unknown): void {
  const list = result[field];
  if (!Array.isArray(values) || !Array.isArray(list)) return;
  result[field] = list.filter((item) => !values.includes(item));
}

/** `$retainKeys`: fields of this object not listed are cleared (a union type switching its member). */
function retainKeys(result: JsonObject, keys: unknown): void {
  if (!Array.isArray(keys)) throw invalid('$retainKeys must be a list');
  for (const key of Object.keys(result)) if (!keys.includes(key)) delete result[key];
}

function withoutDirectives(object: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(object)) {
    if (key.startsWith('$')) continue;
    result[key] = isObject(value) ? withoutDirectives(value) : structuredClone(value);
  }
  return result;
}
