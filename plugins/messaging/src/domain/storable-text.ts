import { storableText } from '../../../../gateway/src/plugin-api.ts';

/**
 * A provider's JSON made storable (../../README.md, "Bad bytes in a notification"); the rules for one string
 * are the core's (gateway/src/text/storable-text.ts).
 */

/**
 * A copy of a parsed JSON value with every string, object keys included, made storable; or null when it is
 * nested deeper than `maxDepth` (the copy is recursive, and so is serialising it again for the database).
 */
export function storableJson(value: unknown, maxDepth: number): { value: unknown } | null {
  let tooDeep = false;
  const copy = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') return storableText(node);
    if (node === null || typeof node !== 'object') return node;
    if (depth >= maxDepth) {
      tooDeep = true;
      return null;
    }
    if (Array.isArray(node)) return node.map((item: unknown) => copy(item, depth + 1));
    // fromEntries defines each key as an own property, `__proto__` included (an assignment would not).
    return Object.fromEntries(
      Object.entries(node).map(([key, item]) => [storableText(key), copy(item, depth + 1)]),
    );
  };
  const result = copy(value, 0);
  return tooDeep ? null : { value: result };
}
