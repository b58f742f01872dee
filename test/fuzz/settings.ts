/**
 * The fuzz suite's size and seeds, from the environment (docs/testing.md, "The fuzz suite"):
 *
 * - `FUZZ_RUNS`: cases per route, per property and per seed (default below, sized for CI).
 * - `FUZZ_SEED`: run this seed only (to reproduce a failure); otherwise a fixed seed and a fresh one.
 * - `FUZZ_PATH`: with `FUZZ_SEED`, replay exactly the counterexample fast-check reported.
 * - `FUZZ_MAX_STRING`: the longest "huge" string (characters).
 * - `FUZZ_REQUEST_TIMEOUT_MS`: how long one request may take before it counts as a hang.
 * - `FUZZ_KEEP_GOING=1`: do not stop at a route's first failure; run every case and list each distinct
 *   failure once, with its smallest request (not shrunk). For surveying a codebase, not for CI.
 */

/** Cases per route, property and seed when FUZZ_RUNS is unset: the whole suite stays within CI's budget. */
export const DEFAULT_RUNS = 12;
/** The seed CI always runs, so a regression on a known input shows on every run. */
export const FIXED_SEED = 1_302_024;

export interface FuzzSettings {
  runs: number;
  /** The seeds to run, each with a label for the report. */
  seeds: ReadonlyArray<{ seed: number; label: 'fixed' | 'fresh' | 'given' }>;
  path: string | undefined;
  maxString: number;
  requestTimeoutMs: number;
  keepGoing: boolean;
}

export function fuzzSettings(env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  const given = integer(env.FUZZ_SEED, 'FUZZ_SEED');
  return {
    runs: integer(env.FUZZ_RUNS, 'FUZZ_RUNS') ?? DEFAULT_RUNS,
    seeds:
      given === undefined
        ? [
            { seed: FIXED_SEED, label: 'fixed' },
            { seed: (Date.now() ^ (Math.random() * 0x7fffffff)) | 0, label: 'fresh' },
          ]
        : [{ seed: given, label: 'given' }],
    path: given === undefined ? undefined : env.FUZZ_PATH || undefined,
    maxString: integer(env.FUZZ_MAX_STRING, 'FUZZ_MAX_STRING') ?? 8_192,
    requestTimeoutMs: integer(env.FUZZ_REQUEST_TIMEOUT_MS, 'FUZZ_REQUEST_TIMEOUT_MS') ?? 10_000,
    keepGoing: env.FUZZ_KEEP_GOING === '1',
  };
}

function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`${name} must be an integer, got "${value}"`);
  return parsed;
}
