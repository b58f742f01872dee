/**
 * Routes of the core (README.md, "Endpoints of the core") and the metrics listener, which serves only
 * `GET /metrics` on a port of its own (docs/configuration.md, `METRICS_PORT`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';
import { promtoolCheck } from '../../test/support/tools.ts';
import type { FullHealthReport } from '../src/http/core-routes.ts';
import { HTTP_DURATION_METRIC } from '../src/http/http-metrics.ts';
import { DROPPED_LOG_LINES_METRIC } from '../src/http/registry.ts';

let db: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url, env: { GATEWAY_PLUGINS: 'fixture,auth,kyc' } });
});

afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

describe('GET /', () => {
  it('is the landing document: name, version, enabled plugins', async () => {
    const res = await fetch(`${gateway.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      name: 'gatehouse',
      version: packageJson.version,
      plugins: ['fixture', 'auth', 'kyc'],
    });
  });
});

describe('GET /health', () => {
  it('answers without touching the database', async () => {
    const stopped = await createTestDatabase();
    const isolated = await startTestGateway({ databaseUrl: stopped.url });
    try {
      // Take the database away under the running gateway: liveness must not depend on it.
      await stopped.drop();
      const res = await fetch(`${isolated.url}/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      const full = await fetch(`${isolated.url}/api/v1/health/full`);
      expect(full.status).toBe(503);
      expect(full.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      const report = (await full.json()) as {
        code: string;
        detail: string;
        health: string;
        checks: { database: unknown };
      };
      expect(report).toMatchObject({
        code: 'service.unavailable',
        health: 'down',
        detail: 'Health checks not ok: database, migrations',
      });
      expect(report.checks.database).toEqual({ status: 'down', reason: 'check failed' });
    } finally {
      await isolated.close();
    }
  });
});

describe('GET /api/v1/health/full', () => {
  it('reports the database, migrations, listeners, each plugin and the exempt routes', async () => {
    const res = await fetch(`${gateway.url}/api/v1/health/full`);
    expect(res.status).toBe(200);
    const report = (await res.json()) as FullHealthReport;
    expect(report.status).toBe('ok');
    expect(report.checks.database).toMatchObject({ status: 'ok', latencyMs: expect.any(Number) as unknown });
    expect(report.checks.migrations).toMatchObject({
      status: 'ok',
      pending: 0,
      latest: expect.stringMatching(/^[a-z]+\/\d{4}_/) as unknown,
    });
    expect(report.checks.migrations.applied).toBeGreaterThanOrEqual(1);
    expect(report.checks.listeners).toEqual({ http: true, metrics: true });
    expect(report.checks.plugins).toEqual({
      fixture: { status: 'ok', limit: 5 },
      // The auth plugin's advice (plugins/auth/README.md, "Break-glass"): a recommendation, not a failure.
      auth: { status: 'ok', warnings: [expect.stringContaining('wildcard admin')] },
    });
    expect(report.exemptRoutes).toEqual(
      expect.arrayContaining([
        { methods: ['GET', 'HEAD'], pattern: '/', owner: 'core' },
        { methods: ['GET', 'HEAD'], pattern: '/health', owner: 'core' },
        { methods: ['GET', 'HEAD'], pattern: '/fixture/throw', owner: 'fixture' },
      ]),
    );
    expect(report.exemptRoutes).not.toContainEqual(
      expect.objectContaining({ pattern: '/api/v1/health/full' }),
    );
  });

  it('is 503 when a plugin reports itself down', async () => {
    const other = await createTestDatabase();
    const sick = await startTestGateway({ databaseUrl: other.url, env: { FIXTURE_HEALTH: 'down' } });
    try {
      const res = await fetch(`${sick.url}/api/v1/health/full`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        status: 503,
        code: 'service.unavailable',
        health: 'down',
        detail: 'Health checks not ok: plugins.fixture',
        checks: { plugins: { fixture: { status: 'down' } } },
      });
    } finally {
      await sick.close();
      await other.drop();
    }
  });
});

describe('metrics', () => {
  it('are not served on the public port', async () => {
    const res = await fetch(`${gateway.url}/metrics`);
    expect(res.status).toBe(404);
  });

  it('label requests by route pattern, never by raw path', async () => {
    await fetch(`${gateway.url}/fixture/things/12345`);
    await fetch(`${gateway.url}/definitely/not/here`);
    const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
    expect(text).toMatch(
      new RegExp(
        `${HTTP_DURATION_METRIC}_count\\{method="GET",route="/fixture/things/:id",status_code="200"\\} \\d+`,
      ),
    );
    expect(text).toMatch(
      new RegExp(`${HTTP_DURATION_METRIC}_count\\{method="GET",route="unmatched",status_code="404"\\} \\d+`),
    );
    // The series (name and labels) never carry the raw path; a value may hold the digits (767123456 bytes).
    const series = text
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => line.slice(0, line.lastIndexOf(' ')));
    expect(series.filter((name) => name.includes('12345'))).toEqual([]);
    expect(text).not.toContain('definitely');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toMatch(new RegExp(`^${DROPPED_LOG_LINES_METRIC} 0$`, 'm'));
  });

  it('pass `promtool check metrics`', async () => {
    const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
    const result = await promtoolCheck(text);
    if (result) expect(result).toEqual({ code: 0, stderr: '', stdout: '' });
  });

  it('the metrics listener answers only GET /metrics', async () => {
    const res = await fetch(`${gateway.metricsUrl}/`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await res.json()).toMatchObject({
      code: 'request.not_found',
      requestId: res.headers.get('x-request-id'),
    });
  });
});
