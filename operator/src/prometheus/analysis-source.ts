import type { Analysis } from '../rollout/types.ts';
import { instantQuery } from './instant-query.ts';
import { fillQuery } from './promql.ts';
import type { AnalysisSource } from './types.ts';

export interface PrometheusAnalysisOptions {
  /** The HTTP client; the global `fetch` by default (tests pass none and talk to a real server). */
  fetch?: typeof globalThis.fetch;
  /** Per query, the whole exchange included. */
  timeoutMs: number;
}

/**
 * The rollout analysis over the Prometheus HTTP API (operator/README.md, "Rollout decisions"). Two instant
 * queries at `at`, run in parallel: the sample size (`gatedRequests`) and the mode's failures (warn: `wouldDeny`,
 * enforce: `failed`).
 *
 * - `gatedRequests` is rounded to a whole number: `increase()` extrapolates to the window's edges, so it is
 *   rarely an integer, and the figure is shown to SREs and compared with a whole minimum.
 * - `failureRatio` is failures / gatedRequests from the unrounded figures, clamped to [0, 1]. The default queries
 *   count one verdict per gated request, but a custom `wouldDeny` query over the per-layer decisions counter
 *   counts a request that fails both layers twice, and the raw quotient can pass 1; a ratio is never above 1, and
 *   above 1 it already means "every request": the clamp keeps the verdict (too high) without a figure that
 *   `checkFigures` would reject as invalid. An empty window (0 gated requests) has ratio 0: `decide` treats it as
 *   too few samples, never as a pass.
 *
 * Every failure (unreachable, timeout, HTTP error, `status: error`, NaN, several series) is `{ ok: false }` with
 * a message naming the query; it never throws.
 */
export function createPrometheusAnalysis(options: PrometheusAnalysisOptions): AnalysisSource {
  const fetch = options.fetch ?? globalThis.fetch;
  return {
    async analyse(request): Promise<Analysis> {
      try {
        const values = {
          windowSeconds: request.windowSeconds,
          namespace: request.namespace,
          mode: request.mode,
        };
        const failuresName = request.mode === 'warn' ? 'wouldDeny' : 'failed';
        const run = (template: string) =>
          instantQuery(request.prometheusUrl, fillQuery(template, values), request.at, {
            fetch,
            timeoutMs: options.timeoutMs,
          });
        const [gated, failures] = await Promise.all([
          run(request.queries.gatedRequests),
          run(request.queries[failuresName]),
        ]);
        if (!gated.ok) return { ok: false, error: `gatedRequests query: ${gated.error}` };
        if (!failures.ok) return { ok: false, error: `${failuresName} query: ${failures.error}` };
        if (gated.value < 0 || failures.value < 0)
          return {
            ok: false,
            error: `negative counts (gatedRequests=${gated.value}, ${failuresName}=${failures.value}): the queries must count events`,
          };
        return {
          ok: true,
          gatedRequests: Math.round(gated.value),
          failureRatio: ratio(failures.value, gated.value),
        };
      } catch (err) {
        // Nothing above should throw; the contract says never, so a bug still comes back as a failed analysis.
        return { ok: false, error: `analysis failed: ${err instanceof Error ? err.message : String(err)}` };
      }
    },
  };
}

/** failures / total clamped to [0, 1]; 0 over an empty window. */
export function ratio(failures: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(1, Math.max(0, failures / total));
}
