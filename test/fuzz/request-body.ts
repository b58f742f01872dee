/**
 * Request bodies for a route: near-valid JSON (from its schema or hint) mutated at any depth, wrong JSON
 * types, deep nesting, prototype keys, malformed JSON and bad bytes, under right and wrong content types and
 * valid, corrupt or unknown `Content-Encoding`s.
 */
import { brotliCompressSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import fc from 'fast-check';
import { deepValue, hostileValue, prototypeObject } from './hostile-values.ts';
import { describeJson, toJsonText, type FuzzJson } from './json-text.ts';
import { applyMutations, mutations } from './mutations.ts';

export interface BodyPlan {
  /** The JSON value sent (before byte-level changes), or raw text for malformed bodies. */
  content: { json: FuzzJson } | { text: string };
  bytes: 'as-is' | 'bom' | 'invalid-utf8' | 'latin1';
  contentType: string | undefined;
  encoding:
    | { name: Codec; corrupt?: 'garbage' | 'truncated' | 'flipped' }
    | { name: string; unknown: true }
    | undefined;
}

/** The body on the wire: bytes as sent, the plain bytes before compression (what gate layer 1 signs). */
export interface RenderedBody {
  plain: Buffer;
  sent: Buffer;
  headers: Record<string, string>;
  description: string;
}

/** The encodings the body parser inflates (zstd since Node 22.15). */
const CODECS = ['gzip', 'deflate', 'br', 'zstd'] as const;
type Codec = (typeof CODECS)[number];
const COMPRESS: Record<Codec, (plain: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
  zstd: zstdCompressSync,
};

const ODD_CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'application/octet-stream',
  '',
];

/** Bodies for a route whose near-valid bodies come from `base`. */
export function bodyPlans(base: fc.Arbitrary<FuzzJson>, maxString: number): fc.Arbitrary<BodyPlan> {
  const mutated = (most: number) =>
    fc.tuple(base, mutations(maxString, most)).map(([value, list]) => applyMutations(value, list));
  const json: fc.Arbitrary<FuzzJson> = fc.oneof(
    { weight: 2, arbitrary: base },
    // One mutation of a near-valid body most often: the body stays valid but for that one thing, so the
    // thing reaches the handler (a NUL in a name reaches the INSERT).
    { weight: 6, arbitrary: mutated(1) },
    { weight: 2, arbitrary: mutated(3) },
    { weight: 1, arbitrary: hostileValue(maxString) },
    { weight: 1, arbitrary: deepValue() },
    { weight: 1, arbitrary: prototypeObject() },
  );
  const content = fc.oneof(
    { weight: 9, arbitrary: json.map((value) => ({ json: value })) },
    { weight: 1, arbitrary: malformed(base).map((text) => ({ text })) },
  );
  return fc.record({
    content,
    bytes: fc.oneof(
      { weight: 20, arbitrary: fc.constant('as-is' as const) },
      { weight: 1, arbitrary: fc.constantFrom('bom' as const, 'invalid-utf8' as const, 'latin1' as const) },
    ),
    contentType: fc.oneof(
      { weight: 16, arbitrary: fc.constant('application/json') },
      { weight: 2, arbitrary: fc.constantFrom(...ODD_CONTENT_TYPES) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    encoding: fc.oneof(
      { weight: 20, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.record({ name: fc.constantFrom(...CODECS) }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          name: fc.constantFrom(...CODECS),
          corrupt: fc.constantFrom('garbage' as const, 'truncated' as const, 'flipped' as const),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          name: fc.constantFrom('compress', 'x-bogus', 'gzip, br', 'identity', 'GZIP'),
          unknown: fc.constant(true as const),
        }),
      },
    ),
  });
}

/** Almost-JSON: cut short, with trailing garbage, JavaScript instead of JSON, or nothing at all. */
function malformed(base: fc.Arbitrary<FuzzJson>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.tuple(base, fc.nat()).map(([value, at]) => {
      const text = toJsonText(value);
      return text.slice(0, at % Math.max(1, text.length));
    }),
    fc
      .tuple(base, fc.constantFrom('}', ',', ']', 'x', '\u0000', ' garbage', '{}'))
      .map(([v, tail]) => toJsonText(v) + tail),
    fc.constantFrom(
      '',
      ' ',
      '{',
      '{"a":}',
      "{'a':1}",
      '{a:1}',
      '[1,]',
      '{"a":1,}',
      'NaN',
      'undefined',
      '"\\x00"',
      '"\\u12"',
      '\u0000',
    ),
  );
}

/** The bytes and headers a plan produces. */
export function renderBody(plan: BodyPlan): RenderedBody {
  const text = 'json' in plan.content ? toJsonText(plan.content.json) : plan.content.text;
  const plain = applyBytes(text, plan.bytes);
  const headers: Record<string, string> = {};
  if (plan.contentType !== undefined) headers['content-type'] = plan.contentType;
  let sent = plain;
  if (plan.encoding) {
    headers['content-encoding'] = plan.encoding.name;
    if (!('unknown' in plan.encoding)) sent = encode(plain, plan.encoding.name, plan.encoding.corrupt);
  }
  const shown =
    'json' in plan.content
      ? describeJson(plan.content.json)
      : JSON.stringify(plan.content.text.slice(0, 300));
  const notes = [
    plan.bytes === 'as-is' ? '' : ` [bytes: ${plan.bytes}]`,
    plan.encoding
      ? ` [content-encoding: ${plan.encoding.name}${'corrupt' in plan.encoding && plan.encoding.corrupt ? `, ${plan.encoding.corrupt}` : ''}]`
      : '',
  ].join('');
  return { plain, sent, headers, description: `${shown}${notes}` };
}

function applyBytes(text: string, bytes: BodyPlan['bytes']): Buffer {
  switch (bytes) {
    case 'as-is':
      return Buffer.from(text, 'utf8');
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'invalid-utf8': {
      // A lone continuation byte and an overlong encoding, spliced into the middle of the text.
      const middle = Math.floor(text.length / 2);
      return Buffer.concat([
        Buffer.from(text.slice(0, middle)),
        Buffer.from([0x80, 0xc0, 0xaf, 0xff]),
        Buffer.from(text.slice(middle)),
      ]);
    }
    case 'latin1':
      return Buffer.from(`${text.slice(0, -1)}\u00e9${text.slice(-1)}`, 'latin1');
  }
}

function encode(plain: Buffer, name: Codec, corrupt?: 'garbage' | 'truncated' | 'flipped'): Buffer {
  if (corrupt === 'garbage') return Buffer.from('this is not compressed data at all');
  const compressed = COMPRESS[name](plain);
  if (corrupt === 'truncated') return compressed.subarray(0, Math.max(1, Math.floor(compressed.length / 2)));
  if (corrupt === 'flipped') {
    const copy = Buffer.from(compressed);
    const at = Math.floor(copy.length / 2);
    copy[at] = (copy[at] ?? 0) ^ 0xff;
    return copy;
  }
  return compressed;
}
