/**
 * JSON values the fuzz suite sends, serialised by hand so that a body can hold what `JSON.stringify` cannot
 * produce: text spliced in verbatim (10,000 levels of nesting, `1e999`, a duplicate key) and object keys
 * such as `__proto__` kept as plain keys.
 */

/** A piece of JSON text sent exactly as written (it may be invalid on purpose). */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** An object whose entries are sent in order, duplicates and `__proto__` included. */
export class JsonEntries {
  readonly entries: ReadonlyArray<readonly [string, FuzzJson]>;
  constructor(entries: ReadonlyArray<readonly [string, FuzzJson]>) {
    this.entries = entries;
  }
}

export type FuzzJson =
  | null
  | boolean
  | number
  | string
  | RawJson
  | JsonEntries
  | readonly FuzzJson[]
  | { readonly [key: string]: FuzzJson };

/** The JSON text of a value. Numbers that JSON cannot write (NaN, Infinity) are written as JS would (`null`). */
export function toJsonText(value: FuzzJson): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof JsonEntries) {
    return `{${value.entries.map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`).join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map((item: FuzzJson) => toJsonText(item)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return toJsonText(new JsonEntries(Object.entries(value)));
  }
  return JSON.stringify(value);
}

/** Text for a value nested `depth` levels deep (arrays or objects), built as a string, not as a tree. */
export function deeplyNested(depth: number, kind: 'array' | 'object'): RawJson {
  return kind === 'array'
    ? new RawJson(`${'['.repeat(depth)}1${']'.repeat(depth)}`)
    : new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
}

/** A short, readable rendering of a value for failure reports (long strings and raw text abbreviated). */
export function describeJson(value: FuzzJson, limit = 600): string {
  const text = toJsonText(value);
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters)`;
}
