import { Registry, type Counter } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateMetrics, type GateLayer, type GateOutcome } from '../../gateway/src/gate/gate-metrics.ts';
import { GATE_METRIC_NAMES } from '../../gateway/src/operator-api.ts';
import { applyDefaults } from '../src/api/defaults.ts';
import { prometheusQueriesSchema } from '../src/api/spec-schema.ts';
import { createPrometheusAnalysis } from '../src/prometheus/analysis-source.ts';
import type { Analysis } from '../src/rollout/types.ts';
import { eventually } from '../../test/support/eventually.ts';
import { freePort } from '../../test/support/process.ts';
import {
  serveRegistries,
  startPrometheus,
  type Exporter,
  type RunningPrometheus,
} from '../../test/support/prometheus.ts';
import { requireTool } from '../../test/support/tools.ts';

// The rollout analysis against a real Prometheus, not a stand-in (docs/adr/0007-operator.md, "Requirements"): the
// Debian `prometheus` binary scrapes, every second, a loopback endpoint serving the gateway's own gate metrics
// (createGateMetrics on a prom-client Registry), whose decisions this test records. The scrape config adds the
// `namespace` label the default queries select on, as Kubernetes service discovery would.
//
// Why the figures are exact here: every series exists at 0 before the traffic (see `initialiseSeries`), and the
// analysis runs at the timestamp of the last scrape. increase() extrapolates a window's first and last samples
// towards its edges, but (Prometheus `extrapolatedRate`) never further back than where a counter would reach 0,
// which is no distance when the first sample is 0, and not forward at all when the window ends on the last
// sample. At any other time (the second test) the end is extrapolated by up to 1.1 scrape intervals, so the
// counts grow by up to (span + 1.1 s) / span; both series of a ratio share their scrape timestamps, so the ratio
// stays exact.

const prometheus = await requireTool('prometheus', 'prometheus');
const DECISIONS = GATE_METRIC_NAMES.decisions;
const WINDOW_SECONDS = 30;
const queries = applyDefaults(prometheusQueriesSchema, {}) as {
  gatedRequests: string;
  wouldDeny: string;
  failed: string;
};

interface Gateway {
  registry: Registry;
  record(layer: GateLayer, outcome: GateOutcome, times: number): void;
  /** Per-request verdicts over both layers (`GATE_METRIC_NAMES.requests`), as the gate counts them. */
  verdicts(outcome: 'pass' | 'fail' | 'would_deny', times: number): void;
}

/** One gateway process's gate metrics, as the gateway builds them. */
function gateway(mode: 'warn' | 'enforce'): Gateway {
  const registry = new Registry();
  const metrics = createGateMetrics(registry, mode);
  // Every series this mode produces, at 0, before any traffic: a series that first appears with a value has no
  // earlier sample, so increase() would not see its first requests.
  const counter = registry.getSingleMetric(DECISIONS) as Counter;
  const failure = mode === 'warn' ? 'would_deny' : 'fail';
  for (const layer of ['hmac', 'session'])
    for (const outcome of ['pass', failure]) counter.inc({ layer, mode, outcome }, 0);
  return {
    registry,
    record(layer, outcome, times) {
      for (let i = 0; i < times; i += 1) metrics.decision(layer, outcome);
    },
    verdicts(outcome, times) {
      for (let i = 0; i < times; i += 1) metrics.verdict(outcome);
    },
  };
}

const warn = gateway('warn');
const enforce = gateway('enforce');
let exporter: Exporter | undefined;
let server: RunningPrometheus | undefined;
let prometheusUrl: string;

/** An instant query's single value straight from the HTTP API (the wait conditions, not the code under test). */
async function scalar(query: string): Promise<number> {
  const url = new URL('/api/v1/query', prometheusUrl);
  url.searchParams.set('query', query);
  const body = (await (await fetch(url)).json()) as {
    data?: { result?: { value: [number, string] }[] };
  };
  const first = body.data?.result?.[0];
  return first ? Number(first.value[1]) : Number.NaN;
}

/** Waits until `check` holds (no fixed sleeps), or fails naming what it waited for. */
const until = (what: string, check: () => Promise<boolean>) =>
  eventually(what, 15_000, async () => ((await check()) ? true : undefined), 100);

const samples = (namespace: string) =>
  scalar(`count_over_time(${DECISIONS}{namespace="${namespace}",layer="hmac",outcome="pass"}[1m])`);
const hmacTotal = (namespace: string) => scalar(`sum(${DECISIONS}{namespace="${namespace}",layer="hmac"})`);
/** When the last scrape of a namespace's target was taken. */
const lastScrape = async (namespace: string) =>
  new Date(Math.round((await scalar(`max(timestamp(${DECISIONS}{namespace="${namespace}"}))`)) * 1000));

/** The error of a failed analysis (the test fails if it succeeded). */
function failure(result: Analysis): string {
  if (result.ok) throw new Error(`expected a failed analysis, got ${JSON.stringify(result)}`);
  return result.error;
}

beforeAll(async () => {
  if (!prometheus) return;
  exporter = await serveRegistries(
    new Map([
      ['/warn', warn.registry],
      ['/enforce', enforce.registry],
    ]),
  );
  const job = (mode: string) => ({
    name: `gateway-${mode}`,
    target: exporter?.target ?? '',
    metricsPath: `/${mode}`,
    labels: { namespace: `team-${mode}` },
  });
  server = await startPrometheus(prometheus, [job('warn'), job('enforce')]);
  prometheusUrl = server.url;
  // Three scrapes of the zeros: the windows then start on a 0 sample and have a scrape interval to average.
  await until(
    'three scrapes of each target',
    async () => (await samples('team-warn')) >= 3 && (await samples('team-enforce')) >= 3,
  );

  // The traffic. Warn: 100 gated requests, 10 fail hmac, 5 of the 90 that pass hmac fail the session layer, and
  // 4 of the 10 hmac failures fail the session layer too (warn runs both layers): 15 requests enforce would refuse.
  warn.record('hmac', 'pass', 90);
  warn.record('hmac', 'would_deny', 10);
  warn.record('session', 'pass', 91);
  warn.record('session', 'would_deny', 9);
  warn.verdicts('pass', 85);
  warn.verdicts('would_deny', 15);
  // Enforce: 200 gated requests, 10 refused by hmac (layer 2 never runs for them), 10 refused by the session layer.
  enforce.record('hmac', 'pass', 190);
  enforce.record('hmac', 'fail', 10);
  enforce.record('session', 'pass', 180);
  enforce.record('session', 'fail', 10);
  enforce.verdicts('pass', 180);
  enforce.verdicts('fail', 20);
  await until(
    'the traffic to be scraped',
    async () => (await hmacTotal('team-warn')) === 100 && (await hmacTotal('team-enforce')) === 200,
  );
}, 30_000);

afterAll(async () => {
  await server?.stop();
  await exporter?.close();
});

describe.skipIf(!prometheus)('rollout analysis against a real Prometheus', () => {
  const source = createPrometheusAnalysis({ timeoutMs: 2000 });
  const analyse = (mode: 'warn' | 'enforce', at: Date) =>
    source.analyse({
      prometheusUrl,
      queries,
      mode,
      windowSeconds: WINDOW_SECONDS,
      namespace: `team-${mode}`,
      at,
    });

  it('warn: gated requests and the would-deny ratio of the default queries, at the last scrape', async () => {
    const result = await analyse('warn', await lastScrape('team-warn'));
    // 15 of 100: the default queries read the per-request verdicts, so the 4 requests that failed both
    // layers count once (summing the per-layer decisions would say 19).
    expect(result).toMatchObject({ ok: true, gatedRequests: 100 });
    expect(result.ok && result.failureRatio).toBeCloseTo(0.15, 9);
  });

  it('enforce: gated requests and the failure ratio (no double count: layer 2 never runs after a refusal)', async () => {
    const result = await analyse('enforce', await lastScrape('team-enforce'));
    expect(result).toMatchObject({ ok: true, gatedRequests: 200 });
    expect(result.ok && result.failureRatio).toBeCloseTo(0.1, 9);
  });

  it('at any other time the counts are extrapolated towards the window end; the ratio is not affected', async () => {
    const result = await analyse('enforce', new Date());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    // At least three scrapes before the traffic, one after: a span of 3 s or more, extended by at most 1.1 s.
    expect(result.gatedRequests).toBeGreaterThanOrEqual(200);
    expect(result.gatedRequests).toBeLessThanOrEqual(Math.ceil((200 * (3 + 1.1)) / 3));
    expect(result.failureRatio).toBeCloseTo(0.1, 9);
  });

  it('a namespace without traffic is 0 requests (inconclusive for decide, never a pass)', async () => {
    const result = await source.analyse({
      prometheusUrl,
      queries,
      mode: 'warn',
      windowSeconds: WINDOW_SECONDS,
      namespace: 'quiet',
      at: new Date(),
    });
    expect(result).toEqual({ ok: true, gatedRequests: 0, failureRatio: 0 });
  });

  it("Prometheus's own refusals: a query it cannot parse, and one returning several series", async () => {
    const bad = await source.analyse({
      prometheusUrl,
      mode: 'warn',
      windowSeconds: WINDOW_SECONDS,
      namespace: 'team-warn',
      at: new Date(),
      queries: { ...queries, wouldDeny: 'sum(increase(' },
    });
    expect(failure(bad)).toMatch(/^wouldDeny query: .*HTTP 400.*bad_data/);
    const several = await source.analyse({
      prometheusUrl,
      mode: 'warn',
      windowSeconds: WINDOW_SECONDS,
      namespace: 'team-warn',
      at: new Date(),
      queries: {
        ...queries,
        gatedRequests: `${DECISIONS}{namespace="{{namespace}}"}`,
      },
    });
    expect(failure(several)).toMatch(/^gatedRequests query: .*answered 4 series/);
  });

  it('an unreachable Prometheus is ok:false, not a throw', async () => {
    const port = await freePort();
    const result = await source.analyse({
      prometheusUrl: `http://127.0.0.1:${port}`,
      queries,
      mode: 'enforce',
      windowSeconds: WINDOW_SECONDS,
      namespace: 'team-enforce',
      at: new Date(),
    });
    expect(failure(result)).toMatch(/^gatedRequests query: .*unreachable/);
  });
});
