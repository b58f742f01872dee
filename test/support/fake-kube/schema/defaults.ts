/**
 * Structural defaulting as the API server applies it to custom objects before validation: an absent field (or a
 * null one that is not nullable) gets its schema default, and defaulting continues inside what was defaulted
 * and inside lists and maps. A non-nullable null without a default is dropped, as the server prunes it.
 */
import { isObject, propertySchema, type Schema } from './types.ts';

/** Returns a defaulted copy of `value`; the input is left alone. */
export function applyDefaults(schema: Schema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items ? value.map((item) => applyDefaults(items, item)) : structuredClone(value);
  }
  if (!isObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const childSchema = propertySchema(schema, key);
    if (child === null && childSchema && !childSchema.nullable) {
      if (childSchema.default !== undefined)
        result[key] = applyDefaults(childSchema, structuredClone(childSchema.default));
      continue;
    }
    result[key] = childSchema ? applyDefaults(childSchema, child) : structuredClone(child);
  }
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (result[key] === undefined && property.default !== undefined)
      result[key] = applyDefaults(property, structuredClone(property.default));
  }
  return result;
}
