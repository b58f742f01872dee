/**
 * The URL of a request for a route: path parameters filled with near-valid values (from the route's
 * schema, ids of rows that exist) or odd ones, and a query string, near-valid or odd.
 */
import fc from 'fast-check';
import { badCharacter, hostileString } from './hostile-values.ts';
import { toJsonText, type FuzzJson } from './json-text.ts';
import { insertMiddle } from './mutations.ts';
import type { RequestContext } from './request-arbitrary.ts';
import type { RouteHint } from './route-hints.ts';
import type { FuzzTarget, SchemaRef } from './route-targets.ts';
import { valuesOf } from './schema-values.ts';

/**
 * Hostile strings in a path or query stay this short (each character percent-encoded in at most 12
 * bytes): the request line stays under Node's header limit, so they reach the gateway's code. Oversized
 * URLs are sent on purpose, and rarely, by their own generators.
 */
const IN_URL_MAX = 1_000;

/** Odd forms a path parameter takes on the wire (already encoded, or deliberately not). */
const RAW_PARAMETERS = [
  '%',
  '%zz',
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%C0%AF',
  '%FF',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '%u0000',
  '%20',
  '\u00e9',
  '-1',
  '0',
  'null',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];

export function pathFor(target: FuzzTarget, context: RequestContext): fc.Arbitrary<string> {
  const segments = target.pattern.split('/').map((segment, index, all): fc.Arbitrary<string> => {
    if (segment === '*')
      return fc.array(parameterValue(undefined, context), { maxLength: 3 }).map((parts) => parts.join('/'));
    if (!segment.startsWith(':')) return fc.constant(segment);
    const schema = target.params?.schema.properties as Record<string, SchemaRef['schema']> | undefined;
    const property = schema?.[segment.slice(1)];
    const values = { ...context.values, preferredIds: idsNamedLike(all[index - 1] ?? '', context) };
    return parameterValue(
      property && target.params ? { schema: property, root: target.params.root } : undefined,
      { ...context, values },
    );
  });
  return fc.tuple(...segments).map((parts) => parts.join('/'));
}

/**
 * Ids of the rows a parameter most likely names, by the route's naming convention: the segment before it
 * (`/tenants/:id`, `/keys/:id/revoke`) names the table (`kyc_tenants`, `kyc_api_keys`).
 */
function idsNamedLike(segment: string, context: RequestContext): string[] {
  const singular = segment.replace(/s$/, '');
  if (singular.length < 3) return [];
  return Object.entries(context.rowIds)
    .filter(([table]) => table.includes(singular))
    .flatMap(([, ids]) => ids);
}

function parameterValue(ref: SchemaRef | undefined, context: RequestContext): fc.Arbitrary<string> {
  const near = ref
    ? valuesOf(ref.schema, context.values, ref.root).map(asText)
    : fc.string({ minLength: 1, maxLength: 20 });
  return fc.oneof(
    { weight: 6, arbitrary: near.map(percentEncode) },
    {
      weight: 2,
      arbitrary: fc.tuple(near, badCharacter).map(([text, bad]) => percentEncode(insertMiddle(text, bad))),
    },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_PARAMETERS) },
    { weight: 1, arbitrary: hostileString(IN_URL_MAX).map(percentEncode) },
    // Longer than the router's parameter limit (512), and (rarely) longer than Node accepts in a request line.
    { weight: 1, arbitrary: fc.constantFrom(600, 2_000, 20_000).map((n) => 'a'.repeat(n)) },
  );
}

/** Odd query strings: repeated keys, bracket syntax, NULs, broken percent-encoding, many parameters. */
const RAW_QUERIES = [
  '%',
  '%zz=1',
  'a=%zz',
  'a=%00',
  '%00=1',
  'a=%E0%A4%A',
  'a=%ED%A0%80',
  'a[b]=1',
  'a[]=1&a[]=2',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
  '__proto__=1',
  '=',
  '&&&',
  '?',
  'a',
  'a=1&a=2',
  'a=1;b=2',
];

export function queryFor(
  target: FuzzTarget,
  hint: RouteHint | undefined,
  context: RequestContext,
): fc.Arbitrary<string> {
  const expected = target.query !== undefined || hint?.query !== undefined;
  const base: fc.Arbitrary<Record<string, unknown>> = target.query
    ? (valuesOf(target.query.schema, context.values, target.query.root) as fc.Arbitrary<
        Record<string, unknown>
      >)
    : (hint?.query ?? fc.constant({}));
  // Near-valid parameters, one of them (by index) with a hostile value instead.
  const entries = fc
    .tuple(
      base,
      fc.option(fc.tuple(fc.nat(), fc.oneof(badCharacter, hostileString(IN_URL_MAX))), {
        freq: 2,
        nil: undefined,
      }),
    )
    .map(([object, swap]) =>
      Object.entries(object).map(([key, value], index, all) => {
        const near = asText(value as FuzzJson);
        const text = swap && swap[0] % all.length === index ? insertMiddle(near, swap[1]) : near;
        return `${percentEncode(key)}=${percentEncode(text)}`;
      }),
    );
  const oddOnes = fc.array(
    fc.oneof(
      fc.constantFrom(...RAW_QUERIES),
      fc
        .tuple(fc.string({ maxLength: 10 }), hostileString(IN_URL_MAX))
        .map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`),
      fc.constantFrom(50, 300, 5_000).map((n) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&')),
    ),
    { minLength: 1, maxLength: 3 },
  );
  const withOdd = fc.tuple(entries, oddOnes).map(([list, odd]) => [...list, ...odd].join('&'));
  return expected
    ? fc.oneof(
        { weight: 3, arbitrary: entries.map((list) => list.join('&')) },
        { weight: 1, arbitrary: withOdd },
      )
    : fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: withOdd });
}

/** A value as it appears in a path, query or header: strings as they are, anything else as JSON. */
export function asText(value: FuzzJson): string {
  return typeof value === 'string' ? value : toJsonText(value);
}

/**
 * `encodeURIComponent`, except that a lone surrogate (which it refuses) is written as the bytes a client
 * can still send for it: its generalised UTF-8 form, e.g. `%ED%A0%80` for U+D800.
 */
function percentEncode(text: string): string {
  return text.replace(/[\ud800-\udfff]|[^\ud800-\udfff]+/gu, (part) => {
    const unit = part.charCodeAt(0);
    if (part.length > 1 || unit < 0xd800 || unit > 0xdfff) return encodeURIComponent(part);
    const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
    return bytes.map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
  });
}
