/**
 * Request headers for a route: those its OpenAPI operation documents (near-valid, hostile or repeated), plus
 * now and then one that has fooled gateways (identity spoofing, forwarding, bad cookies and origins).
 */
import fc from 'fast-check';
import { hostileString } from './hostile-values.ts';
import { asText } from './request-url.ts';
import type { RequestContext } from './request-arbitrary.ts';
import type { FuzzTarget } from './route-targets.ts';
import { valuesOf } from './schema-values.ts';

/** Headers an OpenAPI operation documents, plus odd ones that have fooled gateways. */
const ODD_HEADERS: Array<Record<string, string>> = [
  { 'x-gatehouse-user': 'someone-else' },
  { 'x-gatehouse-roles': '*' },
  { x_gatehouse_user: 'someone-else' },
  { 'x-forwarded-for': '10.0.0.1, 127.0.0.1' },
  { 'accept-encoding': 'gzip, br' },
  { cookie: 'authjs.session-token=not-a-token' },
  { cookie: '=; ;;;a' },
  { 'x-api-key': 'gh_not_a_key' },
  { origin: 'null' },
  { origin: 'https://evil.example' },
  { 'x-hub-signature-256': 'sha256=00' },
  { 'x-request-id': 'supplied-by-client' },
  { 'idempotency-key': '' },
  { accept: 'text/html' },
];

export function headersFor(
  target: FuzzTarget,
  context: RequestContext,
): fc.Arbitrary<Record<string, string | string[]>> {
  const documented = target.headers.map(({ name, schema }) =>
    fc
      .option(
        fc.oneof(
          {
            weight: 4,
            arbitrary: valuesOf(schema.schema, context.values, schema.root).map((v) => headerSafe(asText(v))),
          },
          { weight: 1, arbitrary: hostileString(2_000).map(headerSafe) },
          {
            weight: 1,
            arbitrary: fc.tuple(fc.string(), fc.string()).map(([a, b]) => [headerSafe(a), headerSafe(b)]),
          },
        ),
        { nil: undefined },
      )
      .map((value) => (value === undefined ? {} : { [name.toLowerCase()]: value })),
  );
  const odd = fc.option(fc.constantFrom(...ODD_HEADERS), { freq: 4, nil: undefined }).map((h) => h ?? {});
  return fc
    .tuple(odd, ...documented)
    .map((parts) => Object.assign({}, ...parts) as Record<string, string | string[]>);
}

/** What node:http can put in a header value (latin1 without control characters), at most 2,000 characters. */
function headerSafe(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?').slice(0, 2_000);
}
