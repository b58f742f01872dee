/**
 * Secrets with the strategy a real API server gives them: `stringData` is write-only and merged into `data`
 * (base64, its keys winning), every `data` value must be base64 and every key a valid Secret key (422
 * otherwise), `type` defaults to `Opaque` and cannot change, and `immutable: true` freezes `data` and
 * `immutable`.
 */
import { isDeepStrictEqual } from 'node:util';
import { isObject } from './patch.ts';
import { KubeError } from './status.ts';
import type { KubeObject, ResourceType } from './types.ts';

const KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const SECRET_RESOURCE: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'secrets',
  kind: 'Secret',
  namespaced: true,
  statusSubresource: false,
  generation: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  strategicMergePatch: true,
  admit(next, existing) {
    foldStringData(next);
    next.type ??= existing?.type ?? 'Opaque';
    const problems = [...keyProblems(next), ...immutableProblems(next, existing)];
    if (existing !== undefined && next.type !== existing.type)
      problems.push(`type: Invalid value: "${String(next.type)}": field is immutable`);
    if (problems.length > 0) {
      const name = next.metadata.name ?? '';
      const detail = problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`;
      throw new KubeError(422, `Secret "${name}" is invalid: ${detail}`, 'Invalid', {
        name,
        kind: 'Secret',
      });
    }
    return next;
  },
};

/** `stringData` entries become base64 `data` entries (overriding the same key) and are never stored. */
function foldStringData(secret: KubeObject): void {
  if (secret.stringData === undefined) return;
  const data = isObject(secret.data) ? { ...secret.data } : {};
  if (isObject(secret.stringData)) {
    for (const [key, value] of Object.entries(secret.stringData))
      data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  }
  secret.data = data;
  delete secret.stringData;
}

function keyProblems(secret: KubeObject): string[] {
  if (secret.data === undefined) return [];
  if (!isObject(secret.data)) return ['data: Invalid value: must be a map of strings'];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(secret.data)) {
    if (!KEY.test(key) || key.length > 253)
      problems.push(
        `data[${key}]: Invalid value: "${key}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
      );
    if (typeof value !== 'string' || value.length % 4 !== 0 || !BASE64.test(value))
      problems.push(`data[${key}]: Invalid value: illegal base64 data`);
  }
  return problems;
}

function immutableProblems(next: KubeObject, existing: KubeObject | undefined): string[] {
  if (existing?.immutable !== true) return [];
  return (['data', 'immutable'] as const)
    .filter((field) => !isDeepStrictEqual(existing[field], next[field]))
    .map((field) => `${field}: Forbidden: field is immutable when \`immutable\` is set`);
}
