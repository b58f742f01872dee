/**
 * Pruning of fields a structural schema does not declare, as the API server does before storing a custom
 * object: dropped silently, dropped with a warning, or refused (`fieldValidation`). apiVersion, kind and
 * metadata of a resource root (and of embedded resources) are never pruned here.
 */
import { childPath } from './validate.ts';
import { isObject, preservesUnknown, type Schema } from './types.ts';

const TYPE_AND_OBJECT_META = new Set(['apiVersion', 'kind', 'metadata']);

/** Returns the pruned copy and the paths of the fields removed (`spec.foo`, `spec.env[0].bar`). */
export function prune(
  schema: Schema,
  value: unknown,
  isResourceRoot = true,
): { value: unknown; pruned: string[] } {
  const pruned: string[] = [];
  return { value: walk(schema, value, '', isResourceRoot, pruned), pruned };
}

function walk(schema: Schema, value: unknown, path: string, isRoot: boolean, pruned: string[]): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items) return value;
    return value.map((item, index) =>
      walk(items, item, childPath(path, index), items['x-kubernetes-embedded-resource'] === true, pruned),
    );
  }
  if (!isObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const declared = schema.properties?.[key];
    if (isRoot && TYPE_AND_OBJECT_META.has(key)) {
      // ObjectMeta is the server's own type, whatever the schema says of metadata.
      result[key] = child;
    } else if (declared) {
      result[key] = walk(
        declared,
        child,
        childPath(path, key),
        declared['x-kubernetes-embedded-resource'] === true,
        pruned,
      );
    } else if (typeof schema.additionalProperties === 'object') {
      const values = schema.additionalProperties;
      result[key] = walk(
        values,
        child,
        childPath(path, key),
        values['x-kubernetes-embedded-resource'] === true,
        pruned,
      );
    } else if (preservesUnknown(schema)) {
      result[key] = child;
    } else {
      pruned.push(childPath(path, key));
    }
  }
  return result;
}
