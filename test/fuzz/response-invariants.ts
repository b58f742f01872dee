/**
 * What every answer of the gateway must satisfy, whatever was sent (docs/errors.md): no 5xx; a 4xx is
 * `application/problem+json` with a dotted lower-case `code` and the `requestId`; and no body shows a stack
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

/** The problems of one answer (empty when it is fine). */
export function responseProblems(method: string, res: WireResponse): Problem[] {
  const problems: Problem[] = [];
  if (res.status >= 500)
    problems.push({ what: `answered ${res.status}: a server error for a client's request` });
  if (res.status >= 400 && res.status < 500) problems.push(...problemShape(method, res));
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

function excerpt(text: string, at: number): string {
  return text.slice(Math.max(0, at - 60), at + 100);
}
