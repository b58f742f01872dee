/**
 * Runs one property over the configured seeds with fast-check and turns failures into a report that says
 * how to replay each one (seed and path), what was sent and what came back. With FUZZ_KEEP_GOING=1 it runs
 * every case instead and lists each distinct failure once (settings.ts).
 */
import fc from 'fast-check';
import { SESSION_HEADER } from '../../gateway/src/gate/gate.ts';
import { Violation } from './properties.ts';
import type { FuzzRequest } from './request-arbitrary.ts';
import type { FuzzSettings } from './settings.ts';

interface PropertyRun {
  /** For the replay command: the test file and the test's name. */
  file: string;
  testName: string;
  requests: fc.Arbitrary<FuzzRequest>;
  predicate: (request: FuzzRequest) => Promise<void>;
  settings: FuzzSettings;
  /** How long the property may take in all (its test's timeout, less a margin to write the report). */
  budgetMs: number;
}

export async function checkProperty(run: PropertyRun): Promise<void> {
  if (run.settings.keepGoing) return surveyProperty(run);
  const failures: string[] = [];
  for (const { seed, label } of run.settings.seeds) {
    const details = await fc.check(fc.asyncProperty(run.requests, run.predicate), {
      numRuns: run.settings.runs,
      seed,
      // Shrinking a request that hangs costs a request timeout per step: stop in time to report the
      // smallest failure found so far rather than be killed by the test's timeout with no report.
      interruptAfterTimeLimit: run.budgetMs / run.settings.seeds.length,
      ...(run.settings.path ? { path: run.settings.path } : {}),
    });
    if (details.failed) failures.push(describeFailure(details, label, run));
  }
  if (failures.length > 0) throw new Error(failures.join('\n\n'));
}

/** Every case runs; each kind of violation is reported once, with the smallest request that caused it. */
async function surveyProperty(run: PropertyRun): Promise<void> {
  const found = new Map<string, { count: number; request: FuzzRequest; message: string; seed: number }>();
  for (const { seed } of run.settings.seeds) {
    const record = async (request: FuzzRequest) => {
      try {
        await run.predicate(request);
      } catch (err) {
        if (!(err instanceof Violation)) throw err;
        const seen = found.get(err.kind);
        if (!seen || size(request) < size(seen.request))
          found.set(err.kind, { count: (seen?.count ?? 0) + 1, request, message: err.message, seed });
        else seen.count++;
      }
    };
    await fc.assert(fc.asyncProperty(run.requests, record), { numRuns: run.settings.runs, seed });
  }
  if (found.size === 0) return;
  const report = [...found].map(
    ([kind, { count, request, message, seed }]) =>
      `[${count}×, seed ${seed}] ${kind}\n${describeRequest(request)}\n${message}`,
  );
  throw new Error(`${found.size} kinds of failure:\n\n${report.join('\n\n')}`);
}

function size(request: FuzzRequest): number {
  return request.path.length + (request.body?.plain.length ?? 0) + JSON.stringify(request.headers).length;
}

function describeFailure(details: fc.RunDetails<[FuzzRequest]>, label: string, run: PropertyRun): string {
  const request = details.counterexample?.[0];
  const error =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return [
    `seed ${details.seed} (${label}), path "${details.counterexamplePath ?? ''}", ` +
      `after ${details.numRuns} runs and ${details.numShrinks} shrinks`,
    `replay: FUZZ_SEED=${details.seed} FUZZ_PATH="${details.counterexamplePath ?? ''}" ` +
      `npx vitest run ${run.file} -t '${escapeRegExp(run.testName)}'`,
    request ? describeRequest(request) : 'request: (none)',
    error,
  ].join('\n');
}

/** The request as an HTTP client would show it, long parts abbreviated. */
export function describeRequest(request: FuzzRequest): string {
  const path =
    request.path.length > 300
      ? `${request.path.slice(0, 300)}… (${request.path.length} characters)`
      : request.path;
  const lines = [`request: ${request.method} ${path}`];
  for (const [name, value] of Object.entries(request.headers))
    lines.push(`  ${name}: ${JSON.stringify(value).slice(0, 200)}`);
  if (request.foreignSessionSub !== undefined)
    lines.push(
      `  ${SESSION_HEADER}: <a dashboard's token for sub ${JSON.stringify(request.foreignSessionSub.slice(0, 100))}>`,
    );
  if (request.body) lines.push(`  body: ${request.body.description}`);
  return lines.join('\n');
}

/** `-t` takes a regular expression: the test's name, literally (and quoted for a POSIX shell). */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll("'", "'\\''");
}
