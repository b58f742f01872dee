/**
 * Mutations of a near-valid JSON body at any depth: a value replaced by a hostile or wrongly typed one, a
 * field removed, an extra field, a hostile key, a prototype key, a bad character in an accepted string, an
 * extra field nested thousands of levels deep. Each mutation picks its place by index into the list of the
 * value's nodes, so shrinking leads to the fewest and simplest mutations.
 */
import fc from 'fast-check';
import { badCharacter, hostileKey, hostileValue, prototypeObject } from './hostile-values.ts';
import { deeplyNested, JsonEntries, RawJson, type FuzzJson } from './json-text.ts';

export type Mutation =
  | { kind: 'replace'; at: number; value: FuzzJson }
  | { kind: 'remove'; at: number }
  | { kind: 'add'; at: number; key: string; value: FuzzJson }
  | { kind: 'rename'; at: number; key: string }
  | { kind: 'taint'; at: number; bad: string }
  | { kind: 'deepen'; key: string; value: FuzzJson };

/** One to `most` mutations. */
export function mutations(maxString: number, most = 3): fc.Arbitrary<Mutation[]> {
  const at = fc.nat();
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace'), at, value: hostileValue(maxString) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove'), at }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('add'),
        at,
        key: fc.oneof(hostileKey(maxString), fc.string({ maxLength: 10 })),
        value: fc.oneof(hostileValue(maxString), prototypeObject()),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename'), at, key: hostileKey(maxString) }) },
    // A string the schema accepts, with one character the database or UTF-8 cannot take: it passes
    // validation and reaches SQL.
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('taint'), at, bad: badCharacter }) },
    // An extra field 10,000 levels deep in every object: whichever object the handler keeps whole (a
    // message's raw payload) carries it to code that walks it.
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('deepen'),
        key: fc.string({ maxLength: 5 }),
        value: fc.constantFrom('array' as const, 'object' as const).map((kind) => deeplyNested(10_000, kind)),
      }),
    },
  );
  return fc.array(mutation, { minLength: 1, maxLength: most });
}

/** Applies the mutations in order; the result keeps hostile keys as plain JSON keys. */
export function applyMutations(value: FuzzJson, list: readonly Mutation[]): FuzzJson {
  return list.reduce(applyOne, value);
}

function applyOne(value: FuzzJson, mutation: Mutation): FuzzJson {
  if (mutation.kind === 'taint') {
    const bad = mutation.bad;
    return changeNth(
      value,
      mutation.at,
      (node) => typeof node === 'string',
      (text) => insertMiddle(text as string, bad),
    );
  }
  if (mutation.kind === 'deepen') return deepenAll(value, [mutation.key, mutation.value]);
  const nodes = countNodes(value);
  return rewrite(value, mutation.at % nodes, mutation).value;
}

/** Changes the node number `at` (modulo their count) among the nodes `matches` selects, in pre-order. */
function changeNth(
  value: FuzzJson,
  at: number,
  matches: (node: FuzzJson) => boolean,
  change: (node: FuzzJson) => FuzzJson,
): FuzzJson {
  const count = (node: FuzzJson): number =>
    (matches(node) ? 1 : 0) + children(node).reduce((sum, [, child]) => sum + count(child), 0);
  const total = count(value);
  if (total === 0) return value;
  let index = at % total;
  const walk = (node: FuzzJson): FuzzJson => {
    if (matches(node) && index-- === 0) return change(node);
    const entries = children(node);
    return entries.length === 0
      ? node
      : rebuild(
          node,
          entries.map(([key, child]) => [key, walk(child)] as const),
        );
  };
  return walk(value);
}

function deepenAll(value: FuzzJson, entry: readonly [string, FuzzJson]): FuzzJson {
  const entries = children(value).map(([key, child]) => [key, deepenAll(child, entry)] as const);
  if (isObject(value)) return new JsonEntries([...entries, entry]);
  return entries.length === 0 ? value : rebuild(value, entries);
}

function isObject(node: FuzzJson): boolean {
  return (
    node instanceof JsonEntries ||
    (node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof RawJson))
  );
}

/** `inserted` in the middle of `text`. */
export function insertMiddle(text: string, inserted: string): string {
  const middle = Math.floor(text.length / 2);
  return text.slice(0, middle) + inserted + text.slice(middle);
}

function countNodes(value: FuzzJson): number {
  return 1 + children(value).reduce((sum, [, child]) => sum + countNodes(child), 0);
}

function children(value: FuzzJson): Array<readonly [string, FuzzJson]> {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return [];
  if (value instanceof JsonEntries) return [...value.entries];
  if (Array.isArray(value)) return value.map((item: FuzzJson, index) => [String(index), item] as const);
  return Object.entries(value);
}

/** A node after the walk: its new value, or removed, or renamed (in its parent object). */
interface Rewritten {
  value: FuzzJson;
  /** Nodes still to skip before the one to change; negative once it was changed. */
  remaining: number;
  removed?: boolean;
  renamed?: string;
}

/** Walks in pre-order; `index` counts down to the node to change. Returns the rewritten value. */
function rewrite(value: FuzzJson, index: number, mutation: Mutation): Rewritten {
  if (index === 0) return change(value, mutation);
  let remaining = index - 1;
  const kept: Array<readonly [string, FuzzJson]> = [];
  for (const [key, child] of children(value)) {
    if (remaining < 0) {
      kept.push([key, child]);
      continue;
    }
    const result = rewrite(child, remaining, mutation);
    remaining = result.remaining;
    if (result.removed !== true) kept.push([result.renamed ?? key, result.value] as const);
  }
  return { value: rebuild(value, kept), remaining };
}

function change(value: FuzzJson, mutation: Mutation): Rewritten {
  switch (mutation.kind) {
    case 'replace':
      return { value: mutation.value, remaining: -1 };
    case 'remove':
      return { value, remaining: -1, removed: true };
    case 'rename':
      return { value, remaining: -1, renamed: mutation.key };
    case 'taint':
    case 'deepen':
      // Applied by applyOne before any walk.
      return { value, remaining: -1 };
    case 'add': {
      // Into an array: one more item; into an object: one more entry; on a scalar: the scalar becomes an
      // object with that one entry (a wrong type that carries a hostile key).
      if (Array.isArray(value)) return { value: [...(value as FuzzJson[]), mutation.value], remaining: -1 };
      return { value: new JsonEntries([...children(value), [mutation.key, mutation.value]]), remaining: -1 };
    }
  }
}

function rebuild(value: FuzzJson, entries: Array<readonly [string, FuzzJson]>): FuzzJson {
  if (Array.isArray(value)) return entries.map(([, item]) => item);
  if (value instanceof JsonEntries || (value !== null && typeof value === 'object'))
    return new JsonEntries(entries);
  return value;
}
