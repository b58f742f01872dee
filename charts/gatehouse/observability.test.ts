/**
 * The chart's Grafana dashboard (dashboards/gatehouse.json) and Prometheus alerts (files/alerts.yaml): the rules
 * pass `promtool check rules` and their unit tests (`promtool test rules`), the dashboard's queries parse, every
 * alert links to its section of docs/runbooks.md, and every metric a query reads is one that a booted gateway
 * (all built-in plugins) or a running operator serves on /metrics — a renamed metric fails here, not on a
 * dashboard that silently goes blank. Route labels the dashboard filters on are routes the gateway has.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { silentLogger, startOperator, type RunningOperator } from '../../operator/src/runtime/index.ts';
import { createDefaultReconciler } from '../../operator/src/runtime/default-reconciler.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { startTestCluster, type TestCluster } from '../../test/support/fake-kube/index.ts';
import { gateEnv } from '../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';
import { messagingEnv } from '../../test/support/messaging.ts';
import { AUTHCONFIG_CRD_FILE, testNamespace } from '../../test/support/operator-cluster.ts';
import { baseMetricName, promqlMetricNames, servedMetrics } from '../../test/support/promql-names.ts';
import { requireTool } from '../../test/support/tools.ts';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const ALERTS = path.join(here, 'files', 'alerts.yaml');
const ALERT_TESTS = ['alerts.test.yaml', 'alerts-soak.test.yaml'].map((file) =>
  path.join(here, 'files', file),
);
const DASHBOARD = path.join(here, 'dashboards', 'gatehouse.json');
const RUNBOOKS = path.join(repoRoot, 'docs', 'runbooks.md');

/** Series Prometheus makes itself for every scrape target, not served by any exporter. */
const PROMETHEUS_OWN = new Set(['up']);

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  annotations?: Record<string, string>;
}

interface Target {
  expr?: string;
}

interface Panel {
  type: string;
  title: string;
  datasource?: { uid?: string };
  targets?: Target[];
}

interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  annotations: { list: Array<{ expr?: string }> };
  templating: { list: Array<{ name: string; type: string; query: unknown }> };
}

async function alertRules(): Promise<Rule[]> {
  const doc = parseYaml(await readFile(ALERTS, 'utf8')) as { groups: Array<{ rules: Rule[] }> };
  return doc.groups.flatMap((group) => group.rules);
}

async function dashboard(): Promise<Dashboard> {
  return JSON.parse(await readFile(DASHBOARD, 'utf8')) as Dashboard;
}

/** The metric expression of a Grafana `label_values(expr, label)` variable query (none for `label_values(label)`). */
function labelValuesExpression(query: string): string | undefined {
  const prefix = 'label_values(';
  if (!query.startsWith(prefix) || !query.endsWith(')'))
    throw new Error(`unexpected variable query: ${query}`);
  const inner = query.slice(prefix.length, -1);
  const comma = inner.lastIndexOf(',');
  return comma < 0 ? undefined : inner.slice(0, comma);
}

/** Every PromQL expression in the dashboard: panel targets, annotation queries and variable queries. */
function dashboardExpressions(board: Dashboard): string[] {
  const targets = board.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr ?? ''));
  const annotations = board.annotations.list.flatMap((annotation) => annotation.expr ?? []);
  const variables = board.templating.list
    .filter((variable) => variable.type === 'query')
    .flatMap((variable) => {
      const query = variable.query as { query: string };
      return labelValuesExpression(query.query) ?? [];
    });
  return [...targets, ...annotations, ...variables];
}

/** Grafana's variables replaced by values PromQL accepts, so promtool can parse the query. */
function withGrafanaVariablesFilled(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '5m')
    .replaceAll('$__range', '6h')
    .replaceAll('$namespace', 'gatehouse')
    .replaceAll('$operator_job', 'gatehouse-operator')
    .replaceAll('$job', 'gatehouse-gateway');
}

/** `route="..."` and `route=~"..."` matchers of an expression. */
function routeMatchers(expr: string): Array<{ op: '=' | '=~'; value: string }> {
  const found: Array<{ op: '=' | '=~'; value: string }> = [];
  for (const match of expr.matchAll(/\broute(=~?)"([^"]*)"/g)) {
    found.push({ op: match[1] === '=~' ? '=~' : '=', value: match[2] ?? '' });
  }
  return found;
}

/** GitHub's anchor of a markdown heading (what `runbook_url`'s fragment must equal). */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replaceAll(' ', '-');
}

describe('the alerting rules', () => {
  it('pass promtool check rules and promtool test rules', async () => {
    const promtool = await requireTool('promtool', 'prometheus');
    if (!promtool) return;
    const checked = await run(promtool, ['check', 'rules', ALERTS]);
    expect(checked.stdout).toMatch(/SUCCESS: \d+ rules found/);
    // promtool exits non-zero (the promise rejects) on a failing case and prints it.
    const tested = await run(promtool, ['test', 'rules', ...ALERT_TESTS]).catch(
      (err: { stdout: string; stderr: string }) => {
        throw new Error(`promtool test rules failed:\n${err.stdout}\n${err.stderr}`);
      },
    );
    expect(tested.stdout.match(/SUCCESS/g)).toHaveLength(ALERT_TESTS.length);
  });

  it('are all alerts, each with a severity, a summary and a runbook section of its own', async () => {
    const rules = await alertRules();
    const runbooks = await readFile(RUNBOOKS, 'utf8');
    const sections = [...runbooks.matchAll(/^## (.+)$/gm)].map((match) => anchorOf(match[1] ?? ''));
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(rule.alert, JSON.stringify(rule)).toMatch(/^Gatehouse[A-Za-z]+$/);
      const anchor = anchorOf(rule.alert ?? '');
      expect(rule.annotations?.runbook_url, rule.alert).toBe(`docs/runbooks.md#${anchor}`);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(sections, `docs/runbooks.md has no "## ${rule.alert}"`).toContain(anchor);
    }
    // And no runbook for an alert that no longer exists.
    expect(sections.sort()).toEqual(rules.map((rule) => anchorOf(rule.alert ?? '')).sort());
  });
});

describe('the dashboard', () => {
  it('has a uid, a title, a Prometheus data-source variable every query uses, and parseable PromQL', async () => {
    const board = await dashboard();
    expect(board.uid).toBe('gatehouse-overview');
    expect(board.title).toBe('Gatehouse');
    expect(board.templating.list.find((variable) => variable.name === 'datasource')).toMatchObject({
      type: 'datasource',
      query: 'prometheus',
    });
    const queried = board.panels.filter((panel) => panel.type !== 'row');
    expect(queried.length).toBeGreaterThan(20);
    for (const panel of queried) {
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }

    const promtool = await requireTool('promtool', 'prometheus');
    if (!promtool) return;
    // promtool has no "check expression"; recording rules are parsed exactly as queries are.
    const rules = dashboardExpressions(board).map((expr, i) => ({
      record: `dashboard:query_${i}`,
      expr: withGrafanaVariablesFilled(expr),
    }));
    const dir = await mkdtemp(path.join(tmpdir(), 'gatehouse-dashboard-'));
    try {
      const file = path.join(dir, 'queries.yaml');
      await writeFile(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
      const checked = await run(promtool, ['check', 'rules', file]).catch(
        (err: { stdout: string; stderr: string }) => {
          throw new Error(`a dashboard query does not parse:\n${err.stdout}\n${err.stderr}`);
        },
      );
      expect(checked.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('every metric the dashboard and the alerts read is served', () => {
  let db: TestDatabase;
  let gateway: TestGateway;
  let cluster: TestCluster;
  let operator: RunningOperator | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    gateway = await startTestGateway({
      databaseUrl: db.url,
      env: {
        ...gateEnv('warn'),
        ...messagingEnv({ url: 'http://127.0.0.1:9' }),
        GATEWAY_PLUGINS: 'auth,kyc,messaging,realtime',
        MESSAGING_WORKER_INTERVAL_MS: '60000',
        KYC_WORKER_INTERVAL_MS: '60000',
      },
    });
    cluster = await startTestCluster({ installCrds: [AUTHCONFIG_CRD_FILE] });
  });

  afterAll(async () => {
    await operator?.stop();
    await cluster?.close();
    await gateway?.close();
    await db?.drop();
  });

  /** The operator as `gatehouse operator` runs it (the real reconciler), in a namespace of the test's own. */
  async function operatorMetrics(): Promise<string> {
    const namespace = await testNamespace(cluster.kc, 'obs');
    const kubeConfig: KubeConfig = cluster.kc;
    const log = silentLogger;
    operator = await startOperator({
      kubeConfig,
      namespace,
      identity: `observability-${namespace}`,
      reconciler: (context) => createDefaultReconciler(kubeConfig, context, log),
      port: 0,
      host: '127.0.0.1',
      watchNamespace: namespace,
      log,
    });
    const response = await fetch(`http://127.0.0.1:${operator.port}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  }

  it('by the booted gateway or the operator, histograms counting for their _bucket, _sum and _count', async () => {
    const gatewayResponse = await fetch(`${gateway.metricsUrl}/metrics`);
    expect(gatewayResponse.status).toBe(200);
    const served = new Map([
      ...servedMetrics(await gatewayResponse.text()),
      ...servedMetrics(await operatorMetrics()),
    ]);
    // Guards against a scrape that read nothing: the gate's, a plugin's and the operator's own metrics.
    expect(served.get('gatehouse_auth_gate_requests_total')).toBe('counter');
    expect(served.get('gatehouse_realtime_sockets')).toBe('gauge');
    expect(served.get('gatehouse_operator_authconfig_phase')).toBe('gauge');

    const servedNames = new Set(served.keys());
    const read = [
      ...(await alertRules()).map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
      ...dashboardExpressions(await dashboard()).map((expr) => ({ where: 'dashboard', expr })),
    ];
    const unknown = read.flatMap(({ where, expr }) =>
      promqlMetricNames(expr)
        .filter((name) => !PROMETHEUS_OWN.has(name))
        .filter((name) => {
          const base = baseMetricName(name, servedNames);
          if (!served.has(base)) return true;
          // _bucket only exists on a histogram; _sum and _count on a histogram or a summary.
          return base !== name && !['histogram', 'summary'].includes(served.get(base) ?? '');
        })
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('and the routes the dashboard filters on are routes of the gateway', async () => {
    const patterns = gateway.routes.map((route) => route.pattern);
    const board = await dashboard();
    const matchers = dashboardExpressions(board).flatMap(routeMatchers);
    expect(matchers.length).toBeGreaterThan(0);
    for (const { op, value } of matchers) {
      // Each alternative of a regular expression must name a route, so a renamed route cannot hide in it.
      const alternatives = op === '=' ? [value] : value.split('|');
      for (const alternative of alternatives) {
        const matches = new RegExp(`^(?:${alternative})$`);
        expect(
          patterns.some((pattern) => matches.test(pattern)),
          `route ${alternative}`,
        ).toBe(true);
      }
    }
  });
});
