/** Patch formats: JSON merge patch (RFC 7386) and JSON patch (RFC 6902); server-side apply is in apply.ts. */
import { KubeError } from './status.ts';
import type { JsonObject } from './types.ts';

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7386: objects merge recursively, `null` removes a key, anything else (arrays included) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

interface JsonPatchOperation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

/** RFC 6902 add / remove / replace / test (the client's default patch content type). */
export function jsonPatch(target: JsonObject, operations: unknown): JsonObject {
  if (!Array.isArray(operations)) throw new KubeError(400, 'json patch must be an array of operations');
  let document: unknown = structuredClone(target);
  for (const raw of operations as JsonPatchOperation[]) {
    const tokens = raw.path
      .split('/')
      .slice(1)
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    if (tokens.length === 0) {
      if (raw.op === 'test') continue;
      document = structuredClone(raw.value);
      continue;
    }
    const last = tokens.pop() as string;
    let parent: unknown = document;
    for (const token of tokens) {
      parent = Array.isArray(parent) ? parent[Number(token)] : isObject(parent) ? parent[token] : undefined;
      if (parent === undefined) throw new KubeError(422, `json patch: path ${raw.path} does not exist`);
    }
    applyOperation(parent, last, raw);
  }
  if (!isObject(document)) throw new KubeError(422, 'json patch must leave an object');
  return document;
}

function applyOperation(parent: unknown, key: string, operation: JsonPatchOperation): void {
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (operation.op === 'add') parent.splice(index, 0, structuredClone(operation.value));
    else if (operation.op === 'remove') parent.splice(index, 1);
    else if (operation.op === 'replace') parent[index] = structuredClone(operation.value);
    else if (operation.op === 'test') assertEqual(parent[index], operation);
    else throw new KubeError(422, `json patch: unsupported op ${operation.op}`);
    return;
  }
  if (!isObject(parent)) throw new KubeError(422, `json patch: path ${operation.path} does not exist`);
  if (operation.op === 'add' || operation.op === 'replace') parent[key] = structuredClone(operation.value);
  else if (operation.op === 'remove') {
    if (!(key in parent)) throw new KubeError(422, `json patch: path ${operation.path} does not exist`);
    delete parent[key];
  } else if (operation.op === 'test') assertEqual(parent[key], operation);
  else throw new KubeError(422, `json patch: unsupported op ${operation.op}`);
}

function assertEqual(actual: unknown, operation: JsonPatchOperation): void {
  if (JSON.stringify(actual) !== JSON.stringify(operation.value)) {
    throw new KubeError(422, `json patch: test failed at ${operation.path}`);
  }
}
