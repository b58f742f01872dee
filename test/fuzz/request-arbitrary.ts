/**
 * Whole requests for one route: method, path (parameters filled with near-valid or odd values), query
 * string, documented and odd headers, and a body. Credentials are not part of it: they are added when the
 * request is sent (test/fuzz/credentials.ts), so a reported counterexample is the attack alone.
 */
import fc from 'fast-check';
import { hostileString } from './hostile-values.ts';
import type { FuzzJson } from './json-text.ts';
import { bodyPlans, renderBody, type RenderedBody } from './request-body.ts';
import { headersFor } from './request-headers.ts';
import { pathFor, queryFor } from './request-url.ts';
import type { RouteHint } from './route-hints.ts';
import type { FuzzTarget } from './route-targets.ts';
import { valuesOf, type ValueContext } from './schema-values.ts';

export interface FuzzRequest {
  method: string;
  /** Path and query string, exactly as sent. */
  path: string;
  headers: Record<string, string | string[]>;
  body?: RenderedBody;
  /** Warn mode only: the `sub` of a session token an outside dashboard minted (no HMAC). */
  foreignSessionSub?: string;
}

export interface RequestContext {
  values: ValueContext;
  /** Ids of existing rows by table, for path parameters (see request-url.ts). */
  rowIds: Readonly<Record<string, readonly string[]>>;
  hints: Readonly<Record<string, RouteHint>>;
  maxString: number;
  /** Whether requests may carry a session token minted by an outside dashboard for an arbitrary `sub`. */
  foreignSessions: boolean;
}

/** Longer URLs are sent without a body (see the request's assembly below). */
const MAX_URL_WITH_BODY = 8_000;
/**
 * Oversized URLs are cut to this length: well over Node's 16 KB limit on a request's head, but a request
 * the server reads in one go. Beyond ~64 KB the server closes with bytes unread, the kernel answers with a
 * reset, and the client may never see the answer (whatever the gateway answered).
 */
const MAX_URL = 30_000;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Requests for `target`. */
export function requestsFor(target: FuzzTarget, context: RequestContext): fc.Arbitrary<FuzzRequest> {
  const hint = context.hints[target.name];
  const baseBody = target.body
    ? valuesOf(target.body.schema, context.values, target.body.root)
    : (hint?.body ?? (fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<FuzzJson>));
  const takesBody =
    target.body !== undefined || hint?.body !== undefined || target.methods.some((m) => WRITES.has(m));
  // Routes that take a body get one nearly always; others now and then (a GET with a body is legal HTTP).
  const body = fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: takesBody ? 12 : 1, arbitrary: bodyPlans(baseBody, context.maxString) },
  );
  return fc
    .record({
      method: fc.constantFrom(...target.methods),
      path: pathFor(target, context),
      query: queryFor(target, hint, context),
      headers: headersFor(target, context),
      body,
      foreignSessionSub: context.foreignSessions
        ? fc.option(fc.oneof(fc.string({ maxLength: 40 }), hostileString(300), fc.uuid()), {
            freq: 3,
            nil: undefined,
          })
        : fc.constant(undefined),
    })
    .map(({ method, path, query, headers, body, foreignSessionSub }) => {
      const url = (query === '' ? path : `${path}?${query}`).slice(0, MAX_URL);
      // Node refuses an oversized request line before reading the body, and cuts the connection while the
      // client still writes it: the client would see a reset instead of the answer.
      const rendered = body === undefined || url.length > MAX_URL_WITH_BODY ? undefined : renderBody(body);
      return {
        method,
        path: url,
        headers: { ...headers, ...rendered?.headers },
        ...(rendered ? { body: rendered } : {}),
        ...(foreignSessionSub === undefined ? {} : { foreignSessionSub }),
      };
    });
}
