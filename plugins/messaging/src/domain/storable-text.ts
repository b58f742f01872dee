/**
 * What PostgreSQL can store. A `text` value refuses NUL (22021) and a `jsonb` value refuses NUL and a
 * lone surrogate (22P05, 22P02); identifiers must besides be plain printable text. See ../../README.md,
 * "Bad bytes in a notification".
 */

/** C0 and C1 control characters and DEL. */
const CONTROL = /\p{Cc}/u;

/** Whether an identifier (a message id, a phone number id, a type) is well-formed text without control characters. */
export function isCleanIdentifier(value: string): boolean {
  return value.isWellFormed() && !CONTROL.test(value);
}

/** Free text made storable: NUL and lone surrogates become U+FFFD; everything else is kept. */
export function storableText(text: string): string {
  return (text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text).toWellFormed();
}

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
