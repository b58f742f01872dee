import type { Analysis } from '../rollout/types.ts';

/**
 * Where the rollout's analyses come from: the gate metrics of one AuthConfig over a window. This folder
 * implements it over the Prometheus HTTP API; tests inject their own.
 */
export interface AnalysisSource {
  /**
   * Runs the AuthConfig's queries against its Prometheus over `window` ending `at`, for `mode`
   * (warn: would_deny / total; enforce: fail / total). Never throws: an unreachable or failing Prometheus
   * is `{ ok: false, error }`.
   */
  analyse(request: {
    prometheusUrl: string;
    queries: { gatedRequests: string; wouldDeny: string; failed: string };
    mode: 'warn' | 'enforce';
    windowSeconds: number;
    namespace: string;
    at: Date;
  }): Promise<Analysis>;
}
