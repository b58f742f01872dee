import { isJsonObject } from './json.ts';
import type { JsonSchema } from './json-schema.ts';

/**
 * Structural defaulting as the API server does it on every write and read: a field that is absent (or
 * null, which the server prunes first) gets its schema default, and defaults apply inside a defaulted
 * object too (`oidc: {}` gets `enabled: false`). Pure: returns a new value and leaves the input alone.
 * The operator applies it itself so it behaves the same whether or not the server ran it (an API server
 * with an older CRD installed, the test fake).
 */
export function applyDefaults(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items ? value.map((item) => applyDefaults(items, item)) : [...(value as unknown[])];
  }
  if (!isJsonObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === null) continue;
    const childSchema = schema.properties?.[key] ?? schema.additionalProperties;
    result[key] = childSchema ? applyDefaults(childSchema, child) : child;
  }
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (result[key] === undefined && property.default !== undefined)
      result[key] = applyDefaults(property, structuredClone(property.default));
  }
  return result;
}
