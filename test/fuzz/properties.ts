/**
 * The properties every route must hold for any request (the predicates fast-check runs). A predicate throws
 * a `Violation` that names the class of defect and describes the whole exchange: what came back and what
 * the server logged for it.
 */
import type { FuzzGateway } from './fuzz-gateway.ts';
import type { WireResponse } from './raw-http.ts';
import type { FuzzRequest } from './request-arbitrary.ts';
import type { FuzzTarget } from './route-targets.ts';
import { responseProblems, type Problem } from './response-invariants.ts';
import { changedTables, rowsSettled, type RowCounter } from './row-counts.ts';

/** A broken property. `kind` groups failures with one cause (same defect, same logged error). */
export class Violation extends Error {
  override readonly name = 'Violation';
  readonly kind: string;
  constructor(kind: string, message: string) {
    super(message);
    this.kind = kind;
  }
}

/**
 * Never a 5xx; every 4xx is problem+json with a code and the request id (or the route's own error document);
 * no internals in any body; and
 * nothing failed on the way that the client cannot see (an audit row that could not be written, an
 * upstream call the gateway could not make).
 */
export function answersCleanly(
  fuzz: FuzzGateway,
  target: Pick<FuzzTarget, 'errorMediaType'>,
): (request: FuzzRequest) => Promise<void> {
  return async (request) => {
    const res = await exchange(fuzz, request);
    // Audit rows are written after the answer: wait for them, so their failures are this request's.
    await fuzz.gateway.audit.flush();
    const logged = fuzz.log.take(String(res.headers['x-request-id'] ?? ''));
    const problems = [
      ...responseProblems(request.method, res, { errorMediaType: target.errorMediaType, path: request.path }),
      ...logged.failures.map((line) => ({
        what: `the gateway logged a failure for it: ${generalise(line)}`,
        detail: line,
      })),
    ];
    if (problems.length > 0) throw violation(problems, res, logged.error);
  };
}

/**
 * A refused request (4xx) writes no row, in any table but those a refusal legitimately writes
 * (row-counts.ts). Background work started by earlier successes may write between the two counts; so a
 * changed count is confirmed before it fails the property: once the database has settled, the same request
 * is sent again and must again change nothing. A refusal that writes does so every time; a background write
 * does not repeat on cue.
 */
export function refusalWritesNothing(
  fuzz: FuzzGateway,
  counter: RowCounter,
): (request: FuzzRequest) => Promise<void> {
  return async (request) => {
    const first = await countedExchange(fuzz, counter, request);
    if (!isRefusal(first.res) || first.changed.length === 0) return;
    await rowsSettled(counter, 'background work to settle', 3);
    const again = await countedExchange(fuzz, counter, request);
    if (!isRefusal(again.res) || again.changed.length === 0) return;
    const tables = again.changed.map((change) => change.split(':')[0]).join(', ');
    throw violation(
      [
        {
          what: `a refused request (${again.res.status}) wrote rows in ${tables}`,
          detail: `${again.changed.join(', ')}; the first time: ${first.changed.join(', ')}`,
        },
      ],
      again.res,
      again.logged.error,
    );
  };
}

async function exchange(fuzz: FuzzGateway, request: FuzzRequest): Promise<WireResponse> {
  const wire = await fuzz.authorise(request);
  try {
    return await fuzz.client.send(wire);
  } catch (err) {
    throw new Violation('no answer', `no answer: ${(err as Error).message}`);
  }
}

async function countedExchange(fuzz: FuzzGateway, counter: RowCounter, request: FuzzRequest) {
  // Credentials first: signing in the caller writes a session row, which must not count as the request's.
  const wire = await fuzz.authorise(request);
  const before = await counter.counts();
  let res: WireResponse;
  try {
    res = await fuzz.client.send(wire);
  } catch (err) {
    throw new Violation('no answer', `no answer: ${(err as Error).message}`);
  }
  const changed = changedTables(before, await counter.counts());
  // What the gateway logged about it is the other property's concern; taken so it is not misattributed.
  const logged = fuzz.log.take(String(res.headers['x-request-id'] ?? ''));
  return { res, changed, logged };
}

function isRefusal(res: WireResponse): boolean {
  return res.status >= 400 && res.status < 500;
}

function violation(problems: Problem[], res: WireResponse, logged: string | undefined): Violation {
  const code = problemCode(res);
  const kind = [
    problems.map((p) => p.what).join('; '),
    code && `code ${code}`,
    logged && `logged ${generalise(logged)}`,
  ]
    .filter(Boolean)
    .join(' | ');
  const message = [
    ...problems.map((p) => (p.detail ? `${p.what}: ${JSON.stringify(p.detail)}` : p.what)),
    `answer: ${res.status} ${String(res.headers['content-type'] ?? '')} ${res.text.slice(0, 400)}`,
    ...(logged ? [`the gateway logged: ${logged}`] : []),
  ].join('\n');
  return new Violation(kind, message);
}

function problemCode(res: WireResponse): string | undefined {
  try {
    const code = (JSON.parse(res.text) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** A logged error without the parts that differ between occurrences (ids, positions, quoted input). */
function generalise(logged: string): string {
  return logged
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b\d+\b(?!\))/g, '#')
    .slice(0, 160);
}
