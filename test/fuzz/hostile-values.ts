/**
 * The hostile values of the fuzz suite: strings, keys and JSON values that real clients and attackers send
 * and that each layer (body parser, zod, handlers, SQL, the driver) must refuse cleanly.
 */
import fc from 'fast-check';
import { deeplyNested, JsonEntries, RawJson, type FuzzJson } from './json-text.ts';

/** Strings far longer than any field allows, bounded so a run stays fast (FUZZ_MAX_STRING). */
export function hugeString(maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.integer({ min: 1_000, max: Math.max(1_000, maxLength) }),
      fc.constantFrom('a', 'é', '.', ' ', '😀'),
    )
    .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)));
}

/** Characters PostgreSQL text cannot hold or that UTF-8 cannot encode, inside otherwise ordinary text. */
export const badCharacter = fc.oneof(
  { weight: 3, arbitrary: fc.constant('\u0000') },
  { weight: 3, arbitrary: fc.constantFrom('\ud800', '\udfff', '\ud83d') },
  { weight: 1, arbitrary: fc.constantFrom('\uffff', '\ufeff', '\u202e') },
);

/** Text that has broken servers: quoting, wildcards, escapes, format strings, odd Unicode. */
const trickyText = fc.constantFrom(
  "'",
  "'; --",
  '" OR ""="',
  '%',
  '_',
  '\\',
  '\\u0000',
  '%00',
  '%s%n',
  '${x}',
  '{{x}}',
  '../../etc/passwd',
  'İ',
  'ǅ',
  'ß',
  'Ｃ',
  'a\u0301',
  '\u200b',
  '\r\n',
  '\t',
  ' ',
  '',
  '0',
  '-1',
  '1e309',
  'null',
  'true',
  '[]',
  '{}',
  'NaN',
  '9007199254740993',
);

/** A string that is hostile in one way (shrinks towards the simplest). */
export function hostileString(maxLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    trickyText,
    fc.tuple(fc.string({ maxLength: 8 }), badCharacter, fc.string({ maxLength: 8 })).map((p) => p.join('')),
    fc.string({ unit: 'binary', maxLength: 40 }),
    hugeString(maxLength),
  );
}

/** Object keys that have broken servers: prototype keys, bad characters, empty, very long, dotted. */
export function hostileKey(maxLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', 'a.b', '$where', 'toString', 'hasOwnProperty', 'valueOf', '0'),
    },
    { weight: 1, arbitrary: hostileString(Math.min(maxLength, 4_000)) },
  );
}

/** A JSON value of a wrong kind, a bad number, or a hostile string: whatever a field did not expect. */
export function hostileValue(maxLength: number): fc.Arbitrary<FuzzJson> {
  return fc.oneof(
    { weight: 3, arbitrary: hostileString(maxLength) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<FuzzJson>(null, true, false, 0, -1, 0.5, [], {}, [null], { a: 1 }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        new RawJson('1e999'),
        new RawJson('-1e999'),
        new RawJson('123456789012345678901234567890'),
        new RawJson('9007199254740993'),
        new RawJson('-0'),
        new RawJson('1.0e-400'),
        new RawJson('"\\ud800"'),
        new RawJson('"\\u0000"'),
      ),
    },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: deepValue() },
    { weight: 1, arbitrary: prototypeObject() },
  );
}

/** Nesting beyond any sane depth (10,000 levels by default), as raw text. */
export function deepValue(): fc.Arbitrary<FuzzJson> {
  return fc
    .tuple(fc.constantFrom(100, 1_000, 10_000), fc.constantFrom('array' as const, 'object' as const))
    .map(([depth, kind]) => deeplyNested(depth, kind));
}

/** An object carrying `__proto__` / `constructor` / `prototype` keys as plain JSON keys. */
export function prototypeObject(): fc.Arbitrary<FuzzJson> {
  const polluting = fc.constantFrom<FuzzJson>(
    { isAdmin: true, roles: ['*'] },
    { prototype: { isAdmin: true } },
    null,
    'x',
    1,
  );
  return fc
    .array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype'), polluting), {
      minLength: 1,
      maxLength: 3,
    })
    .map((entries) => new JsonEntries(entries));
}
