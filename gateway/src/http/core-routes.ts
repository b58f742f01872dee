import type { Response } from 'express';
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Database } from '../db/database.ts';
import './request-state.ts';
import type { ApiAuthMode } from '../gate/config.ts';
import { coreErrors } from '../errors/core-errors.ts';
import type { RouteRegistrar, RouteTable } from '../plugin/route-table.ts';
import type { HealthReport, HealthStatus } from '../plugin/types.ts';

export interface CoreRouteDeps {
  name: string;
  version: string;
  plugins: readonly string[];
  db: Database;
  routeTable: RouteTable;
  /** Ids (`scope/name`) of the migrations on disk for the enabled plugins. */
  expectedMigrations: readonly string[];
  healthChecks: ReadonlyMap<string, () => HealthReport | Promise<HealthReport>>;
  listeners: () => { http: Server | undefined; metrics: Server | undefined };
  healthTimeoutMs: number;
  apiAuthMode: ApiAuthMode;
}

/**
 * The core's routes (README.md, "Endpoints of the core"): the landing answer, the cheap liveness check, the
 * deep health report, and who the gate says the caller is.
 */
export function registerCoreRoutes(routes: RouteRegistrar, deps: CoreRouteDeps): void {
  // The landing body never changes while the process runs: serialise it once.
  const landing = Buffer.from(
    JSON.stringify({ name: deps.name, version: deps.version, plugins: deps.plugins }),
  );
  const healthy = Buffer.from(JSON.stringify({ status: 'ok' }));

  routes.add({
    method: 'GET',
    path: '/',
    exempt: true,
    handler: (_req, res) => sendJson(res, landing),
  });

  // Cheap and free of I/O: liveness probes must not fail because the database is slow.
  routes.add({
    method: 'GET',
    path: '/health',
    exempt: true,
    handler: (_req, res) => sendJson(res, healthy),
  });

  // Gated. Who the gate says the caller is: lets a dashboard check that it signs and forwards correctly.
  routes.add({
    method: 'GET',
    path: '/api/v1/gate/identity',
    handler: (req, res) => {
      sendJson(res, JSON.stringify({ mode: deps.apiAuthMode, identity: req.identity ?? null }));
    },
  });

  // Gated: it discloses internals (the database, the migrations, which routes are exempt).
  routes.add({
    method: 'GET',
    path: '/api/v1/health/full',
    handler: async (_req, res) => {
      const report = await fullHealth(deps);
      if (report.status === 'ok') {
        res.json(report);
        return;
      }
      // Every 5xx is problem+json (docs/errors.md); the report travels as extension members.
      const failing = failingChecks(report);
      throw coreErrors.create('service.unavailable', {
        detail: `Health checks not ok: ${failing.join(', ')}`,
        // `status` is the problem's HTTP status; the report's own status travels as `health`.
        extensions: { health: report.status, checks: report.checks, exemptRoutes: report.exemptRoutes },
      });
    },
  });
}

/** JSON with the headers it needs and nothing else (no ETag, no charset negotiation). */
function sendJson(res: Response, body: Buffer | string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(body);
}

/** The body of `GET /api/v1/health/full`. */
export interface FullHealthReport {
  status: HealthStatus;
  checks: {
    database: HealthReport;
    migrations: HealthReport;
    listeners: { http: boolean; metrics: boolean };
    plugins: Record<string, HealthReport>;
  };
  exemptRoutes: Array<{ methods: string[]; pattern: string; owner: string }>;
}

async function fullHealth(deps: CoreRouteDeps): Promise<FullHealthReport> {
  const [database, migrations, plugins] = await Promise.all([
    check(deps.healthTimeoutMs, async () => {
      const started = performance.now();
      await deps.db.query('SELECT 1');
      return { status: 'ok' as const, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
    }),
    check(deps.healthTimeoutMs, async () => {
      const { rows } = await deps.db.query<{ id: string }>(
        "SELECT scope || '/' || name AS id FROM gatehouse_migrations ORDER BY applied_at, scope, name",
      );
      const applied = new Set(rows.map((row) => row.id));
      const pending = deps.expectedMigrations.filter((id) => !applied.has(id));
      return {
        status: pending.length === 0 ? ('ok' as const) : ('degraded' as const),
        applied: rows.length,
        pending: pending.length,
        ...(pending.length > 0 ? { pendingIds: pending } : {}),
        latest: rows.at(-1)?.id ?? null,
      };
    }),
    Promise.all(
      [...deps.healthChecks].map(async ([id, run]) => [id, await check(deps.healthTimeoutMs, run)] as const),
    ),
  ]);
  const { http, metrics } = deps.listeners();
  const listeners = { http: http?.listening ?? false, metrics: metrics?.listening ?? false };
  const statuses = [
    database.status,
    migrations.status,
    listeners.http && listeners.metrics ? 'ok' : 'degraded',
    ...plugins.map(([, report]) => report.status),
  ];
  return {
    status: statuses.includes('down') ? 'down' : statuses.includes('degraded') ? 'degraded' : 'ok',
    checks: { database, migrations, listeners, plugins: Object.fromEntries(plugins) },
    // Operators review which routes skip the API gate before each phase (docs/api-auth-gate.md).
    exemptRoutes: deps.routeTable
      .list()
      .filter((route) => route.exempt)
      .map((route) => ({ methods: route.methods, pattern: route.pattern, owner: route.owner })),
  };
}

function failingChecks(report: FullHealthReport): string[] {
  const { database, migrations, listeners, plugins } = report.checks;
  return [
    ...(database.status === 'ok' ? [] : ['database']),
    ...(migrations.status === 'ok' ? [] : ['migrations']),
    ...(listeners.http && listeners.metrics ? [] : ['listeners']),
    ...Object.entries(plugins)
      .filter(([, check]) => check.status !== 'ok')
      .map(([id]) => `plugins.${id}`),
  ];
}

/** Runs one health check with a deadline; a throw or a timeout is `down` with a generic reason. */
async function check(
  timeoutMs: number,
  run: () => HealthReport | Promise<HealthReport>,
): Promise<HealthReport> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HealthReport>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'down', reason: 'timed out' }), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(run), timeout]);
  } catch {
    // The driver's message may disclose hosts or users; it goes to no client, even a gated one.
    return { status: 'down', reason: 'check failed' };
  } finally {
    clearTimeout(timer);
  }
}
