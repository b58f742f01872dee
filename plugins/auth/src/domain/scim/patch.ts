import { isGatewayError } from '../../../../../gateway/src/plugin-api.ts';
import { authErrors } from '../../errors.ts';
import { findExtension, type Attribute, type ResourceDefinition } from './attributes.ts';
import type { Comparison } from './filter.ts';
import { asBoolean, foldKey, isObject, type Json, type JsonObject } from './json.ts';
import { parsePath, type Target } from './path.ts';

export type PatchOp = 'add' | 'remove' | 'replace';

export interface PatchOperation {
  readonly op: PatchOp;
  readonly path?: string;
  readonly value?: Json;
}

/** Most operations one PATCH may carry. */
export const MAX_OPERATIONS = 1000;

const invalidSyntax = (detail: string) => authErrors.create('auth.scim.invalid_syntax', { detail });
const invalidValue = (detail: string) => authErrors.create('auth.scim.invalid_value', { detail });

/** A member of a JSON object by name, compared without regard to case (`Operations`, `op`, `path`). */
function member(object: JsonObject, name: string): Json | undefined {
  if (name in object) return object[name];
  const wanted = name.toLowerCase();
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === wanted);
  return key === undefined ? undefined : object[key];
}

/**
 * The operations of a PatchOp request. `op` is read without regard to case (Entra ID sends `"Replace"`); an
 * empty path is no path.
 */
export function patchOperations(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw invalidSyntax('The body is a PatchOp JSON object');
  const operations = member(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw invalidSyntax('Operations is a non-empty array');
  }
  if (operations.length > MAX_OPERATIONS) throw invalidSyntax(`At most ${MAX_OPERATIONS} operations`);
  return operations.map((operation) => {
    if (!isObject(operation)) throw invalidSyntax('Each operation is an object');
    const op = member(operation, 'op');
    const name = typeof op === 'string' ? op.toLowerCase() : '';
    if (name !== 'add' && name !== 'remove' && name !== 'replace') {
      throw invalidSyntax('op is add, remove or replace');
    }
    const path = member(operation, 'path');
    if (path !== undefined && path !== null && typeof path !== 'string') {
      throw authErrors.create('auth.scim.invalid_path', { detail: 'path is a string' });
    }
    const value = member(operation, 'value');
    return { op: name, ...(path ? { path } : {}), ...(value !== undefined ? { value } : {}) };
  });
}

/**
 * Applies PATCH operations to a resource as SCIM spells it (RFC 7644, "Modifying with PATCH"), returning the
 * changed copy; the caller checks the result as it checks a PUT. Beyond the RFC, what identity providers send
 * is taken as they mean it: a filtered `add`/`replace` that matches no value adds one built from the filter
 * (`emails[type eq "work"].value` on a user without a work email), `remove` of `members` with a value removes
 * just those members, and a string given for a complex attribute with a `value` (Entra ID's `manager`) is its
 * `value`.
 */
export function applyPatch(
  resource: ResourceDefinition,
  document: JsonObject,
  operations: readonly PatchOperation[],
): JsonObject {
  const copy = structuredClone(document);
  for (const operation of operations) {
    if (operation.path === undefined) applyWithoutPath(resource, copy, operation);
    else applyToTarget(resource, copy, parsePath(resource, operation.path), operation);
  }
  return copy;
}

/** No path: the value is an object of attributes (or of paths), each applied as if it were the path. */
function applyWithoutPath(resource: ResourceDefinition, document: JsonObject, operation: PatchOperation) {
  if (operation.op === 'remove')
    throw authErrors.create('auth.scim.no_target', { detail: 'remove needs a path' });
  if (!isObject(operation.value))
    throw invalidValue('An operation without a path takes an object of attributes');
  for (const [key, value] of Object.entries(operation.value)) {
    const extension = findExtension(resource, key);
    const entries: Array<[string, Json]> =
      extension && isObject(value)
        ? Object.entries(value).map(([inner, v]) => [`${extension.schema}:${inner}`, v])
        : [[key, value]];
    for (const [path, inner] of entries) {
      const target = lenientTarget(resource, path);
      applyToTarget(resource, document, target, { op: operation.op, value: inner });
    }
  }
}

/**
 * A key of a path-less value as a target. Such values repeat what the client holds (Okta sends the `id` in a
 * group rename), so a key that is server-set, read-only or not a path is skipped rather than refused.
 */
function lenientTarget(resource: ResourceDefinition, key: string): Target {
  try {
    return parsePath(resource, key);
  } catch (err) {
    if (isGatewayError(err)) return { kind: 'ignored' };
    throw err;
  }
}

function applyToTarget(
  resource: ResourceDefinition,
  document: JsonObject,
  target: Target,
  operation: PatchOperation,
): void {
  if (target.kind === 'ignored') return;
  if (target.kind === 'extension') {
    if (operation.op === 'remove') {
      delete document[target.schema];
      return;
    }
    if (!isObject(operation.value)) throw invalidValue(`${target.schema} takes an object`);
    for (const [key, value] of Object.entries(operation.value)) {
      const inner = lenientTarget(resource, `${target.schema}:${key}`);
      applyToTarget(resource, document, inner, { op: operation.op, value });
    }
    return;
  }
  const container = containerOf(document, target.schema);
  if (operation.op !== 'remove' && operation.value === undefined) {
    throw invalidValue(`${operation.op} of ${target.attribute.name} needs a value`);
  }
  if (target.attribute.multiValued) applyMultiValued(container, target, operation);
  else if (target.attribute.type === 'complex') applyComplex(container, target, operation);
  else if (operation.op === 'remove') delete container[target.attribute.name];
  else container[target.attribute.name] = operation.value ?? null;
}

/** The object an attribute lives in: the resource itself, or its extension's object (made when missing). */
function containerOf(document: JsonObject, schema: string | null): JsonObject {
  if (schema === null) return document;
  const existing = document[schema];
  if (isObject(existing)) return existing;
  const made: JsonObject = {};
  document[schema] = made;
  return made;
}

type AttributeTarget = Extract<Target, { kind: 'attribute' }>;

/** `name`, `name.givenName`, `manager`: sub-attributes given are merged into the value (RFC 7644). */
function applyComplex(container: JsonObject, target: AttributeTarget, operation: PatchOperation): void {
  const name = target.attribute.name;
  const existing = container[name];
  const current: JsonObject = isObject(existing) ? existing : {};
  if (target.sub === 'ignored') return;
  if (target.sub) {
    if (operation.op === 'remove') delete current[target.sub.name];
    else current[target.sub.name] = operation.value ?? null;
    container[name] = current;
    return;
  }
  if (operation.op === 'remove') {
    delete container[name];
    return;
  }
  container[name] = { ...current, ...asComplex(target.attribute, operation.value ?? null) };
}

/** An object for a complex attribute; a bare value stands for its `value` sub-attribute where it has one. */
function asComplex(attribute: Attribute, value: Json): JsonObject {
  if (isObject(value)) return value;
  if (
    value !== null &&
    !Array.isArray(value) &&
    attribute.subAttributes?.some((sub) => sub.name === 'value')
  ) {
    return { value };
  }
  throw invalidValue(`${attribute.name} takes an object`);
}

function applyMultiValued(container: JsonObject, target: AttributeTarget, operation: PatchOperation): void {
  const name = target.attribute.name;
  const existing = container[name];
  const items = (Array.isArray(existing) ? existing : []).filter(isObject);
  if (target.sub === 'ignored') return;
  if (target.filter === undefined && target.sub === undefined) {
    container[name] = wholeList(target.attribute, items, operation);
    return;
  }
  // A set: a filter may select most of a group of 100,000 members, and each value is looked up once.
  const matches = new Set(
    items.filter((item) => target.filter === undefined || matchesAll(item, target.filter)),
  );
  if (operation.op === 'remove') {
    container[name] = target.sub
      ? items.map((item) => (matches.has(item) ? without(item, target.sub as Attribute) : item))
      : items.filter((item) => !matches.has(item));
    return;
  }
  const value = operation.value ?? null;
  const update = (item: JsonObject): JsonObject =>
    target.sub
      ? { ...item, [(target.sub as Attribute).name]: value }
      : { ...item, ...asComplex(target.attribute, value) };
  if (matches.size === 0) {
    container[name] = [...items, update(equalities(target.filter ?? []))];
    return;
  }
  container[name] = items.map((item) => (matches.has(item) ? update(item) : item));
}

/** add appends, replace replaces the whole list, remove empties it (or, given values, removes just those). */
function wholeList(attribute: Attribute, items: JsonObject[], operation: PatchOperation): Json[] {
  if (operation.op === 'remove') {
    if (operation.value === undefined || operation.value === null) return [];
    const gone = new Set(
      asList(attribute, operation.value).map((item) => JSON.stringify(item.value ?? null)),
    );
    return items.filter((item) => !gone.has(JSON.stringify(item.value ?? null)));
  }
  const given = asList(attribute, operation.value ?? null);
  return operation.op === 'replace' ? given : [...items, ...given];
}

function asList(attribute: Attribute, value: Json): JsonObject[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((item) => asComplex(attribute, item));
}

function without(item: JsonObject, sub: Attribute): JsonObject {
  const copy = { ...item };
  for (const key of Object.keys(copy)) if (key.toLowerCase() === sub.name.toLowerCase()) delete copy[key];
  return copy;
}

/** A value a filter selects, made from its comparisons: `type eq "work"` gives `{ type: "work" }`. */
function equalities(filter: readonly Comparison[]): JsonObject {
  const made: JsonObject = {};
  for (const comparison of filter)
    if (!comparison.attribute.includes('.')) made[comparison.attribute] = comparison.value;
  return made;
}

function matchesAll(item: JsonObject, filter: readonly Comparison[]): boolean {
  return filter.every((comparison) => {
    const key = Object.keys(item).find(
      (candidate) => candidate.toLowerCase() === comparison.attribute.toLowerCase(),
    );
    return equal(key === undefined ? undefined : item[key], comparison.value);
  });
}

/** Strings compare without regard to case (the sub-attributes filtered on are not case-exact). */
function equal(actual: Json | undefined, expected: Comparison['value']): boolean {
  if (expected === null) return actual === undefined || actual === null;
  if (typeof expected === 'boolean') return asBoolean(actual) === expected;
  if (typeof expected === 'number') return actual === expected;
  return typeof actual === 'string' && foldKey(actual) === foldKey(expected);
}
