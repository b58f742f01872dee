import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

/**
 * prom-client's default metrics name three gauges with a `_total` suffix, which the exposition-format
 * rules reserve for counters (`promtool check metrics` rejects them). Each is the sum of a per-type gauge
 * that stays (`nodejs_active_handles{type}` and so on), so nothing is lost by dropping them.
 */
const MISNAMED_DEFAULT_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** The name of the dropped-log-lines counter (README.md, "Endpoints of the core"). */
export const DROPPED_LOG_LINES_METRIC = 'gatehouse_log_dropped_lines_total';

/**
 * The gateway's own registry (never prom-client's global one), with the default process metrics and
 * `gatehouse_log_dropped_lines_total`: a log reader that stalls must show up somewhere other than the logs.
 */
export function createMetricsRegistry(options: { droppedLogLines: () => number }): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(name);
  new Counter({
    name: DROPPED_LOG_LINES_METRIC,
    help: 'Log lines dropped because the log reader fell behind (stdout blocked)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(options.droppedLogLines());
    },
  });
  return registry;
}
