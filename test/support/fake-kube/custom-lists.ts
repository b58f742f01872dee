/**
 * How server-side apply merges a custom resource's lists and objects: as its CRD's structural schema declares
 * them (`x-kubernetes-list-type` `atomic` | `set` | `map` with `x-kubernetes-list-map-keys`, and
 * `x-kubernetes-map-type` `atomic` | `granular`), lists without a list type atomic; `metadata` as every kind's.
 */
import { builtinFieldSchema } from './builtin-lists.ts';
import type { FieldSchema, ListKind } from './field-paths.ts';
import { propertySchema, type Schema } from './schema/types.ts';

const ATOMIC: ListKind = { type: 'atomic' };

/** ObjectMeta's lists (ownerReferences, finalizers), which no CRD schema declares. */
const METADATA = builtinFieldSchema('');

export function customFieldSchema(root: Schema | undefined): FieldSchema {
  return {
    builtin: false,
    list: (path) => {
      if (path[0] === 'f:metadata') return METADATA.list(path);
      const node = schemaAt(root, path);
      return node ? listKindOf(node) : ATOMIC;
    },
    atomicObject: (path) => schemaAt(root, path)?.['x-kubernetes-map-type'] === 'atomic',
  };
}

/** The schema of the node at a path: properties (or a map's additionalProperties) by field, items by item. */
function schemaAt(root: Schema | undefined, steps: readonly string[]): Schema | undefined {
  let node = root;
  for (const step of steps) {
    if (!node) return undefined;
    node = step.startsWith('f:') ? propertySchema(node, step.slice(2)) : node.items;
  }
  return node;
}

function listKindOf(node: Schema): ListKind {
  const listType = node['x-kubernetes-list-type'];
  if (listType === 'set') return { type: 'set' };
  if (listType !== 'map') return ATOMIC;
  const keys = node['x-kubernetes-list-map-keys'] ?? [];
  const defaults = Object.fromEntries(
    keys
      .map((key) => [key, node.items?.properties?.[key]?.default] as const)
      .filter(([, value]) => value !== undefined),
  );
  return Object.keys(defaults).length > 0 ? { type: 'map', keys, defaults } : { type: 'map', keys };
}
