/**
 * Field paths and field sets as server-side apply keeps them (structured-merge-diff, README.md beside this file,
 * "Server-side apply"). A path is a list of steps, each spelled as in `metadata.managedFields[].fieldsV1`:
 * `f:<field>`, `k:<JSON of the key fields>` for an item of a list merged by keys, `v:<JSON>` for an item of a
 * set, `i:<index>` for an item without its keys. A set holds paths joined by a newline (JSON never has one).
 */
import { isObject } from './patch.ts';
import { KubeError } from './status.ts';
import type { JsonObject } from './types.ts';

export type FieldSet = Set<string>;

const SEPARATOR = '\n';

export const pathKey = (steps: readonly string[]): string => steps.join(SEPARATOR);
export const stepsOf = (key: string): string[] => (key === '' ? [] : key.split(SEPARATOR));
export const fieldStep = (name: string): string => `f:${name}`;

/** How a list merges: by the keys of its items (`map`), as a set of values, or whole (`atomic`). */
export type ListKind =
  | { type: 'map'; keys: readonly string[]; defaults?: Readonly<Record<string, unknown>> }
  | { type: 'set' }
  | { type: 'atomic' };

/**
 * What the fake knows of a type's schema, by path (steps as in `fieldsV1`): built-in kinds by their Go types'
 * markers (`builtin-lists.ts`), custom resources by their CRD's structural schema (`custom-lists.ts`).
 */
export interface FieldSchema {
  /** Go structs: some objects always exist, and objects and lists a removal empties are dropped. */
  builtin: boolean;
  /** How the list at `path` merges; atomic when its type says nothing. */
  list(path: readonly string[]): ListKind;
  /** The object at `path` is owned whole (`x-kubernetes-map-type: atomic`, a LabelSelector). */
  atomicObject(path: readonly string[]): boolean;
}

export const listKind = (path: readonly string[], schema: FieldSchema): ListKind => schema.list(path);

export const isAtomicObject = (path: readonly string[], schema: FieldSchema): boolean =>
  schema.atomicObject(path);

/** The step naming a list item, or undefined when an item of a keyed list lacks a key field. */
export function itemStep(kind: ListKind, item: unknown): string | undefined {
  if (kind.type === 'set') return `v:${JSON.stringify(item)}`;
  if (kind.type !== 'map' || !isObject(item)) return undefined;
  const key: JsonObject = {};
  for (const field of [...kind.keys].sort()) {
    const value = item[field] ?? kind.defaults?.[field];
    if (value === undefined || value === null) return undefined;
    key[field] = value;
  }
  return `k:${JSON.stringify(key)}`;
}

/** The step of an item of an applied list: a keyed item without its key is a 422, as on a real server. */
export function appliedItemStep(kind: ListKind, item: unknown, path: readonly string[], index: number) {
  const step = itemStep(kind, item);
  if (step !== undefined) return step;
  const missing = kind.type === 'map' ? kind.keys.find((key) => !isObject(item) || item[key] == null) : '';
  throw new KubeError(
    422,
    `failed to create typed patch object: ${describePath(path)}: element ${index}: associative list with keys has an element that omits key field "${missing}" (and doesn't have default value)`,
  );
}

/**
 * The 422 of an applied list with two items of one key (or a set with a repeated value): structured-merge-diff
 * refuses duplicates in an applied configuration, though create and update accept them in a live object.
 */
export function duplicateEntries(path: readonly string[], step: string): KubeError {
  return new KubeError(
    422,
    `failed to create typed patch object: ${describePath(path)}: duplicate entries for key ${describeStep(step)}`,
  );
}

/** A path as the server prints it in conflicts: `.spec.template.spec.containers[name="gateway"].image`. */
export function describePath(steps: readonly string[]): string {
  return steps.map(describeStep).join('');
}

function describeStep(step: string): string {
  const body = step.slice(2);
  if (step.startsWith('f:')) return `.${body}`;
  if (step.startsWith('v:')) return `[=${body}]`;
  if (step.startsWith('i:')) return `[${body}]`;
  const key = JSON.parse(body) as JsonObject;
  return `[${Object.entries(key)
    .map(([field, value]) => `${field}=${JSON.stringify(value)}`)
    .join(',')}]`;
}

/** Steps in the order the server writes them: fields, then keys, values and indexes, each by text. */
export function compareSteps(a: string, b: string): number {
  const rank = (step: string) => 'fkvi'.indexOf(step[0] ?? 'f');
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

interface Node {
  member: boolean;
  children: Map<string, Node>;
}

/** `fieldsV1`: a tree of steps; a member with children carries `.: {}`, a member leaf is `{}`. */
export function toFieldsV1(set: FieldSet): JsonObject {
  const root: Node = { member: false, children: new Map() };
  for (const key of set) {
    let node = root;
    for (const step of stepsOf(key)) {
      let child = node.children.get(step);
      if (!child) node.children.set(step, (child = { member: false, children: new Map() }));
      node = child;
    }
    node.member = true;
  }
  return encode(root);
}

function encode(node: Node): JsonObject {
  const result: JsonObject = node.member && node.children.size > 0 ? { '.': {} } : {};
  for (const step of [...node.children.keys()].sort(compareSteps)) {
    result[step] = encode(node.children.get(step) as Node);
  }
  return result;
}

export function fromFieldsV1(value: unknown, prefix: string[] = [], set: FieldSet = new Set()): FieldSet {
  if (!isObject(value)) return set;
  const entries = Object.entries(value);
  if (entries.length === 0 && prefix.length > 0) set.add(pathKey(prefix));
  for (const [step, child] of entries) {
    if (step === '.') set.add(pathKey(prefix));
    else fromFieldsV1(child, [...prefix, step], set);
  }
  return set;
}
