/**
 * The fuzz suite of one gate mode: for every route of the booted gateway, the properties of properties.ts,
 * then one check over what the gateway logged meanwhile. Routes come from the running gateway, so the test
 * file boots it while vitest collects the tests (top-level await).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFuzzGateway } from './fuzz-gateway.ts';
import { answersCleanly, refusalWritesNothing } from './properties.ts';
import { requestsFor, type FuzzRequest } from './request-arbitrary.ts';
import { rowCounter } from './row-counts.ts';
import { checkProperty } from './run-property.ts';
import { fuzzSettings } from './settings.ts';
import { UNMATCHED_TARGETS } from './route-targets.ts';

const PROPERTIES = {
  clean:
    'answers without a 5xx; refusals are problem+json with a code and requestId (or the error document a route declares); no internals; nothing failed unseen',
  noWrite: 'writes no row when it refuses a request',
} as const;

export async function defineFuzzSuite(mode: 'enforce' | 'warn', file: string): Promise<void> {
  const settings = fuzzSettings();
  const fuzz = await startFuzzGateway(mode, settings);
  afterAll(() => fuzz.close());
  const counter = await rowCounter(fuzz.db.pool);
  const targets = [...fuzz.targets, ...UNMATCHED_TARGETS];
  const perProperty = targets.length * settings.runs * settings.seeds.length;
  const size =
    `${targets.length} routes × ${settings.runs} cases × ${settings.seeds.length} seeds ` +
    `(${settings.seeds.map((s) => `${s.label} ${s.seed}`).join(', ')}) × 2 properties = ${perProperty * 2} requests`;
  // Printed at the start whatever the reporter shows: the size of the run and the seeds to replay it.
  process.stderr.write(`fuzz ${mode}: ${size}\n`);
  // Generous: a loaded 2-core machine, argon2 on the sign-in routes, and shrinking after a failure.
  const timeoutMs = 120_000 + settings.runs * settings.seeds.length * 2_000;

  const title =
    mode === 'enforce' ? 'fuzz, enforce mode with every credential' : 'fuzz, warn mode without credentials';
  describe(`${title} (${size})`, () => {
    const context = {
      values: { ids: fuzz.ids, sinkUrl: fuzz.sinkUrl },
      rowIds: fuzz.rowIds,
      hints: fuzz.hints,
      maxString: settings.maxString,
      foreignSessions: mode === 'warn',
    };
    for (const target of targets) {
      describe(target.name, () => {
        const requests = requestsFor(target, context);
        const property = (name: string, predicate: (request: FuzzRequest) => Promise<void>) =>
          it(
            name,
            () =>
              checkProperty({
                file,
                testName: `${target.name} > ${name}`,
                requests,
                predicate,
                settings,
                budgetMs: timeoutMs - 30_000,
              }),
            timeoutMs,
          );
        property(PROPERTIES.clean, answersCleanly(fuzz, target));
        property(PROPERTIES.noWrite, refusalWritesNothing(fuzz, counter));
      });
    }

    it('logged no failed background work while it was fuzzed', async () => {
      await fuzz.gateway.audit.flush();
      expect(Object.fromEntries(fuzz.log.otherFailures())).toEqual({});
    });
  });
}
