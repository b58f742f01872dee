/**
 * The `x-kubernetes-list-type` invariants the API server checks on custom objects: a `set` has no repeated
 * item, a `map` no two items with the same keys (`Duplicate value`).
 */
import type { FieldError } from './field-errors.ts';
import { childPath } from './validate.ts';
import { isObject, propertySchema, type Schema } from './types.ts';

export function validateListTypes(schema: Schema, value: unknown, path = ''): FieldError[] {
  const errors: FieldError[] = [];
  walk(schema, value, path, errors);
  return errors;
}

function walk(schema: Schema, value: unknown, path: string, errors: FieldError[]): void {
  if (Array.isArray(value)) {
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set' || listType === 'map') {
      const keys = schema['x-kubernetes-list-map-keys'] ?? [];
      const seen = new Set<string>();
      value.forEach((item: unknown, index) => {
        const identity: unknown =
          listType === 'set'
            ? item
            : Object.fromEntries(keys.map((k) => [k, isObject(item) ? item[k] : undefined]));
        const text = JSON.stringify(identity);
        if (seen.has(text))
          errors.push({
            type: 'FieldValueDuplicate',
            field: childPath(path, index),
            value: identity,
            detail: '',
          });
        seen.add(text);
      });
    }
    const items = schema.items;
    if (items) value.forEach((item, index) => walk(items, item, childPath(path, index), errors));
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childSchema = propertySchema(schema, key);
    if (childSchema) walk(childSchema, child, childPath(path, key), errors);
  }
}
