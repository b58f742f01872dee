/**
 * What every answer of the gateway must satisfy, whatever was sent (docs/errors.md): no 5xx; a 4xx is
 * `application/problem+json` with a dotted lower-case `code` and the `requestId`, or, on a route that declares
 * a protocol's own error format (the SCIM routes), that protocol's error document; and no body shows a stack
 * trace, a source path, SQL or a database driver's message.
 */
import type { WireResponse } from './raw-http.ts';

const CODE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;

/** Traces of internals that must never reach a client. Each is specific enough not to match echoed input. */
const LEAKS: ReadonlyArray<[string, RegExp]> = [
  ['a stack frame', /\bat (?:async )?[\w$.<>]+ \(|\n[ \t]+at \S/],
  ['a source path with a line number', /(?<![\w./-])[\w./-]+\.(?:ts|js|mjs|cjs):\d+(?::\d+)?/],
  ['a node internal or dependency path', /node:internal|node_modules\//],
  ['SQL', /\b(?:SELECT\s[\s\S]*\sFROM|INSERT INTO|UPDATE\s+\w+\s+SET|DELETE FROM|ON CONFLICT)\b/],
  [
    'a PostgreSQL message',
    /syntax error at or near|violates (?:not-null|unique|foreign key|check) constraint|invalid input syntax for|invalid byte sequence for encoding|unsupported Unicode escape|duplicate key value|null value in column|relation "[^"]+" does not exist|column "[^"]+" (?:of relation|does not exist)|value too long for type|out of range for type|canceling statement/i,
  ],
  ['a PostgreSQL error code field', /"(?:code|sqlState|sqlstate)"\s*:\s*"[0-9][0-9A-Z]{4}"/],
  [
    'a JavaScript error name',
    /\b(?:TypeError|RangeError|ReferenceError|DatabaseError|ZodError|Maximum call stack size exceeded)\b/,
  ],
];

/** What is wrong with an answer: `what` names the class of defect, `detail` this instance. */
export interface Problem {
  what: string;
  detail?: string;
}

/**
 * The problems of one answer (empty when it is fine). `route` is what the request was aimed at: the route's own
 * error format, when it declares one (route-targets.ts), and the path sent.
 */
export function responseProblems(
  method: string,
  res: WireResponse,
  route: { errorMediaType?: string | undefined; path?: string } = {},
): Problem[] {
  const problems: Problem[] = [];
  if (res.status >= 500)
    problems.push({ what: `answered ${res.status}: a server error for a client's request` });
  if (res.status >= 400 && res.status < 500) {
    problems.push(
      ...(route.errorMediaType && routable(route.path)
        ? ownErrorShape(method, res, route.errorMediaType)
        : problemShape(method, res)),
    );
  }
  // Internals must not leak from any answer; 2xx bodies of documents (HTML, scripts) are exempt, since a
  // JavaScript bundle legitimately contains `at (` and source maps.
  const contentType = String(res.headers['content-type'] ?? '');
  if (res.status >= 400 || contentType.includes('json')) {
    for (const [what, pattern] of LEAKS) {
      const found = pattern.exec(res.text);
      if (found) problems.push({ what: `the body shows ${what}`, detail: excerpt(res.text, found.index) });
    }
  }
  return problems;
}

function problemShape(method: string, res: WireResponse): Problem[] {
  const contentType = String(res.headers['content-type'] ?? '');
  if (!contentType.startsWith('application/problem+json')) {
    return [{ what: `a ${res.status} with Content-Type "${contentType}", not application/problem+json` }];
  }
  // A HEAD answer has headers only.
  if (method === 'HEAD') return [];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.text) as Record<string, unknown>;
  } catch {
    return [{ what: `a ${res.status} whose problem+json body is not JSON` }];
  }
  const problems: Problem[] = [];
  if (typeof body.code !== 'string' || !CODE.test(body.code))
    problems.push({
      what: `a ${res.status} without a dotted lower-case code`,
      detail: JSON.stringify(body.code),
    });
  if (typeof body.requestId !== 'string' || body.requestId === '')
    problems.push({ what: `a ${res.status} without a requestId` });
  else if (res.headers['x-request-id'] !== body.requestId)
    problems.push({ what: `a ${res.status} whose requestId differs from its X-Request-Id header` });
  if (body.status !== res.status)
    problems.push({ what: `a ${res.status} whose body says status ${JSON.stringify(body.status)}` });
  return problems;
}

/**
 * Codes answered before any route is matched: Node's refusals of malformed HTTP, and a path the router cannot
 * match at all (its percent-encoding does not decode), which is 404, or 401 under `/api/v1/` in enforce mode.
 * These stay problem+json on every path, a route's own format included (docs/errors.md).
 */
const BEFORE_ROUTING = new Set([
  'request.malformed',
  'request.uri_too_long',
  'request.headers_too_large',
  'request.timeout',
  'request.not_found',
  'api.auth.unauthenticated',
]);

/** The error documents of the protocols whose routes declare their own format. */
const ERROR_DOCUMENTS: Readonly<
  Record<string, (res: WireResponse, body: Record<string, unknown>) => Problem[]>
> = {
  // RFC 7644, "Error Response": the Error schema, `status` as a string equal to the HTTP status.
  'application/scim+json': (res, body) => {
    const problems: Problem[] = [];
    const schemas = body.schemas;
    if (!Array.isArray(schemas) || !schemas.includes('urn:ietf:params:scim:api:messages:2.0:Error'))
      problems.push({
        what: `a SCIM ${res.status} without the Error schema`,
        detail: JSON.stringify(schemas),
      });
    if (body.status !== String(res.status))
      problems.push({ what: `a SCIM ${res.status} whose body says status ${JSON.stringify(body.status)}` });
    if (typeof body.detail !== 'string') problems.push({ what: `a SCIM ${res.status} without a detail` });
    return problems;
  },
};

/**
 * Whether the router can match the path at all: find-my-way matches no route (a wildcard neither) when the
 * path's percent-encoding does not decode (`%`, `%zz`, `%ED%A0%80`), and the pipeline then answers in
 * problem+json, whatever else is wrong with the request (a malformed body is found first).
 */
function routable(path: string | undefined): boolean {
  if (path === undefined) return true;
  try {
    decodeURIComponent(path.split('?')[0] ?? '');
    return true;
  } catch {
    return false;
  }
}

/** A 4xx of a route with its own error format: that format, or problem+json for what precedes routing. */
function ownErrorShape(method: string, res: WireResponse, mediaType: string): Problem[] {
  const contentType = String(res.headers['content-type'] ?? '');
  if (contentType.startsWith('application/problem+json')) {
    const shape = problemShape(method, res);
    if (shape.length > 0 || method === 'HEAD') return shape;
    const code = (JSON.parse(res.text) as { code?: unknown }).code;
    return typeof code === 'string' && BEFORE_ROUTING.has(code)
      ? []
      : [
          {
            what: `a ${res.status} in problem+json (${String(code)}) from a route that answers ${mediaType}`,
          },
        ];
  }
  if (!contentType.startsWith(mediaType)) {
    return [{ what: `a ${res.status} with Content-Type "${contentType}", not ${mediaType}` }];
  }
  if (!res.headers['x-request-id']) return [{ what: `a ${res.status} without an X-Request-Id` }];
  if (method === 'HEAD') return [];
  const check = ERROR_DOCUMENTS[mediaType];
  if (!check) return [{ what: `no check of the error format ${mediaType} (response-invariants.ts)` }];
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return [{ what: `a ${res.status} whose ${mediaType} body is not JSON` }];
  }
  if (typeof body !== 'object' || body === null)
    return [{ what: `a ${res.status} whose body is not an object` }];
  return check(res, body as Record<string, unknown>);
}

function excerpt(text: string, at: number): string {
  return text.slice(Math.max(0, at - 60), at + 100);
}
