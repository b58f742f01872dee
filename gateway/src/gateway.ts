import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { RequestHandler } from 'express';
import type { DestinationStream } from 'pino';
import type { Registry } from 'prom-client';
import packageJson from '../../package.json' with { type: 'json' };
import { createAuditWriter, type AuditWriter } from './audit/audit-writer.ts';
import { BootError } from './boot-error.ts';
import { BUILTIN_PLUGINS } from './builtin-plugins.ts';
import { systemClock, type Clock } from './clock.ts';
import type { CoreConfig } from './config/core-config.ts';
import type { Env } from './config/read-env.ts';
import { createDatabase, type Database } from './db/database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './db/embedded.ts';
import {
  migrate,
  MigrationError,
  readMigrations,
  type MigrationReport,
  type MigrationSource,
} from './db/migrate.ts';
import { createFailureAudit } from './gate/failure-audit.ts';
import { createGate } from './gate/gate.ts';
import { createGateMetrics } from './gate/gate-metrics.ts';
import { createSessionVerifier, type SessionVerifier } from './gate/session-verifier.ts';
import { registerCoreRoutes } from './http/core-routes.ts';
import { registerUpstreams } from './http/upstreams.ts';
import { createHttpMetrics } from './http/http-metrics.ts';
import { createMetricsServer } from './http/metrics-server.ts';
import { createMetricsRegistry } from './http/registry.ts';
import { expressClasses } from './http/express-classes.ts';
import { buildPipeline, createExpressApp } from './http/pipeline.ts';
import { createLoggers, type Logger } from './logger.ts';
import { migrationsDir } from './plugin/migrations-dir.ts';
import type { ResolvedPlugin } from './plugin/loader.ts';
import { RouteConflictError, RouteTable } from './plugin/route-table.ts';
import type { GatewayPlugin, HealthReport, PipelineSlot, PluginHooks, ReadyInfo } from './plugin/types.ts';
import { loadSettings, type Settings } from './settings.ts';

export interface GatewayOptions {
  /** Defaults to process.env. */
  env?: Env;
  /** The plugins GATEWAY_PLUGINS may name; defaults to the built-in four. Tests add fixtures here. */
  available?: readonly GatewayPlugin[];
  clock?: Clock;
  /** Where logs go; defaults to stdout. */
  logDestination?: DestinationStream;
}

export interface RunningGateway {
  readonly url: string;
  readonly metricsUrl: string;
  readonly config: CoreConfig;
  readonly db: Database;
  readonly logger: Logger;
  readonly audit: AuditWriter;
  /** Stops accepting, drains in-flight requests (bounded), closes everything it opened. Idempotent. */
  close(): Promise<void>;
}

/** Boots the gateway: settings → database → migrations → plugins → pipeline → listeners. */
export async function startGateway(options: GatewayOptions = {}): Promise<RunningGateway> {
  const settings = loadSettings(options.env ?? process.env, pluginMap(options.available));
  const { logger, accessLog } = createLoggers({
    level: settings.core.LOG_LEVEL,
    destination: options.logDestination,
  });
  const clock = options.clock ?? systemClock;
  const cleanup: Array<() => Promise<void>> = [];
  const undo = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  };

  try {
    const { db, embedded } = await openDatabase(settings.core, logger);
    cleanup.push(async () => {
      await db.pool.end();
      await embedded?.stop();
    });
    const sources = migrationSources(settings.plugins);
    await runMigrationsOrRefuse(db, sources, logger);
    const expectedMigrations = (await readMigrations(sources)).map((file) => `${file.scope}/${file.name}`);

    const registry = createMetricsRegistry();
    const audit = createAuditWriter({ db, clock, logger });
    const routeTable = new RouteTable();
    const verifier = await createSessionVerifier({
      secrets: settings.gate.authSecrets,
      cookieName: settings.gate.sessionCookie,
      clock,
      cacheSize: settings.gate.sessionCacheSize,
    });
    const hooks = createHookCollector(verifier);
    installGate({ settings, verifier, audit, registry, clock, hooks });
    // Created now, listening later: the core routes report on them, the pipeline is attached once built.
    const app = createExpressApp(settings.core.TRUST_PROXY);
    const server = createServer(expressClasses(app));
    const metricsServer = createMetricsServer(registry);

    registerCoreRoutes(routeTable.registrar('core'), {
      name: packageJson.name,
      version: packageJson.version,
      plugins: settings.plugins.map(({ plugin }) => plugin.id),
      db,
      routeTable,
      expectedMigrations,
      healthChecks: hooks.healthChecks,
      listeners: () => ({ http: server, metrics: metricsServer }),
      healthTimeoutMs: 2_000,
      apiAuthMode: settings.gate.mode,
    });
    try {
      registerUpstreams(routeTable.registrar('upstream'), settings.gate.upstreams, {
        timeoutMs: settings.gate.upstreamTimeoutMs,
        logger,
      });
    } catch (err) {
      if (err instanceof RouteConflictError) throw new BootError([`GATEWAY_UPSTREAMS: ${err.message}`]);
      throw err;
    }
    await registerPlugins(settings, { db, logger, audit, registry, clock, routeTable, hooks, verifier });

    const handle = buildPipeline(app, {
      routes: routeTable,
      slots: hooks.slots,
      logger,
      accessLog,
      metrics: createHttpMetrics(registry),
      corsOrigins: settings.core.CORS_ORIGINS,
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      req.gatehouseStartedAt = performance.now();
      handle(req, res);
    });
    await listen(server, settings.core.PORT, settings.core.HOST, 'PORT');
    cleanup.push(() => closeServer(server));
    await listen(
      metricsServer,
      settings.core.METRICS_PORT,
      settings.core.METRICS_HOST ?? settings.core.HOST,
      'METRICS_PORT',
    );
    cleanup.push(() => closeServer(metricsServer));

    const info: ReadyInfo = { server };
    for (const ready of hooks.ready) await ready(info);

    const url = urlOf(server);
    const metricsUrl = urlOf(metricsServer);
    logger.info(
      {
        url,
        metricsUrl,
        apiAuthMode: settings.gate.mode,
        plugins: settings.plugins.map(({ plugin }) => plugin.id),
      },
      'gateway listening',
    );

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= shutdown({
        server,
        metricsServer,
        timeoutMs: settings.core.SHUTDOWN_TIMEOUT_MS,
        closeHooks: hooks.close,
        audit,
        db,
        embedded,
        logger,
      }));
    return { url, metricsUrl, config: settings.core, db, logger, audit, close };
  } catch (err) {
    await undo();
    throw err;
  }
}

/** `gatehouse migrate`: the same settings and migrations as boot, without serving. */
export async function runMigrations(options: GatewayOptions = {}): Promise<MigrationReport> {
  const settings = loadSettings(options.env ?? process.env, pluginMap(options.available));
  const { logger } = createLoggers({ level: settings.core.LOG_LEVEL, destination: options.logDestination });
  const { db, embedded } = await openDatabase(settings.core, logger);
  try {
    return await runMigrationsOrRefuse(db, migrationSources(settings.plugins), logger);
  } finally {
    await db.pool.end();
    await embedded?.stop();
  }
}

function pluginMap(available: readonly GatewayPlugin[] = BUILTIN_PLUGINS): Map<string, GatewayPlugin> {
  return new Map(available.map((plugin) => [plugin.id, plugin]));
}

async function openDatabase(
  core: CoreConfig,
  logger: Logger,
): Promise<{ db: Database; embedded?: EmbeddedPostgresHandle }> {
  if (core.DATABASE_URL !== undefined) {
    return {
      db: createDatabase({ connectionString: core.DATABASE_URL, max: core.DATABASE_POOL_MAX, logger }),
    };
  }
  logger.info('DATABASE_URL is unset: using the embedded PostgreSQL');
  const embedded = await startEmbeddedPostgres({
    dataDir: core.DATA_DIR,
    port: core.EMBEDDED_PG_PORT,
    logger,
  });
  const db = createDatabase({
    connectionString: embedded.connectionString,
    max: core.DATABASE_POOL_MAX,
    logger,
  });
  return { db, embedded };
}

/** Core migrations first, then each plugin's in registration (dependency) order. */
function migrationSources(plugins: readonly ResolvedPlugin[]): MigrationSource[] {
  return [
    { scope: 'core', dir: migrationsDir('core') },
    ...plugins.flatMap(({ plugin }) =>
      plugin.migrations ? [{ scope: plugin.id, dir: plugin.migrations }] : [],
    ),
  ];
}

async function runMigrationsOrRefuse(
  db: Database,
  sources: readonly MigrationSource[],
  logger: Logger,
): Promise<MigrationReport> {
  try {
    return await migrate(db.pool, sources, logger);
  } catch (err) {
    if (err instanceof MigrationError) throw new BootError(err.message.split('\n'));
    const unreachable = describeConnectionFailure(err, db);
    if (unreachable) throw new BootError([unreachable]);
    throw err;
  }
}

/** Errors that mean "the database named by DATABASE_URL cannot be used", by Node or Postgres code. */
const CONNECTION_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  '28P01',
  '28000',
  '3D000',
]);

/** A boot refusal naming host, port and database (never the password) when the database is unreachable. */
function describeConnectionFailure(err: unknown, db: Database): string | null {
  const code = (err as { code?: unknown }).code;
  const timedOut = err instanceof Error && /timeout/i.test(err.message);
  if (!timedOut && (typeof code !== 'string' || !CONNECTION_FAILURES.has(code))) return null;
  return `DATABASE_URL: cannot use the database at ${db.target} (${typeof code === 'string' ? `${code}: ` : ''}${(err as Error).message})`;
}

interface HookCollector extends PluginHooks {
  readonly slots: Map<PipelineSlot, RequestHandler[]>;
  readonly healthChecks: Map<string, () => HealthReport | Promise<HealthReport>>;
  readonly ready: Array<(info: ReadyInfo) => void | Promise<void>>;
  readonly close: Array<() => void | Promise<void>>;
  forPlugin(id: string): PluginHooks;
}

/**
 * The API gate (issue 3) fills pipeline slots 5-7 before any plugin registers, so plugin slot handlers
 * run after it. Collapsed failure summaries are swept every 5 s and flushed at shutdown.
 */
function installGate(deps: {
  settings: Settings;
  verifier: SessionVerifier;
  audit: AuditWriter;
  registry: Registry;
  clock: Clock;
  hooks: HookCollector;
}): void {
  const failures = createFailureAudit({ audit: deps.audit, clock: deps.clock });
  const sweep = setInterval(() => failures.sweep(), 5_000);
  sweep.unref();
  const gate = createGate({
    config: deps.settings.gate,
    verifier: deps.verifier,
    failures,
    metrics: createGateMetrics(deps.registry, deps.settings.gate.mode),
    audit: deps.audit,
    clock: deps.clock,
  });
  deps.hooks.pipeline('gate.layer1', gate.layer1);
  deps.hooks.pipeline('gate.layer2', gate.layer2);
  deps.hooks.pipeline('audit.sensitive', gate.sensitiveAudit);
  deps.hooks.onClose(() => {
    clearInterval(sweep);
    failures.flush();
  });
}

function createHookCollector(verifier: SessionVerifier): HookCollector {
  const slots = new Map<PipelineSlot, RequestHandler[]>();
  const healthChecks = new Map<string, () => HealthReport | Promise<HealthReport>>();
  const ready: HookCollector['ready'] = [];
  const close: HookCollector['close'] = [];
  const forPlugin = (id: string): PluginHooks => ({
    pipeline(slot, handler) {
      const list = slots.get(slot) ?? [];
      list.push(handler);
      slots.set(slot, list);
    },
    health(check) {
      healthChecks.set(id, check);
    },
    onReady(fn) {
      ready.push(fn);
    },
    onClose(fn) {
      close.push(fn);
    },
    sessionCheck(check) {
      verifier.addCheck(check);
    },
  });
  return { ...forPlugin('core'), slots, healthChecks, ready, close, forPlugin };
}

async function registerPlugins(
  settings: Settings,
  deps: {
    db: Database;
    logger: Logger;
    audit: AuditWriter;
    registry: Registry;
    clock: Clock;
    routeTable: RouteTable;
    hooks: HookCollector;
    verifier: SessionVerifier;
  },
): Promise<void> {
  for (const { plugin, config } of settings.plugins) {
    try {
      await plugin.register({
        id: plugin.id,
        config,
        core: settings.core,
        logger: deps.logger.child({ plugin: plugin.id }),
        db: deps.db,
        routes: deps.routeTable.registrar(plugin.id),
        audit: deps.audit,
        metrics: deps.registry,
        clock: deps.clock,
        hooks: deps.hooks.forPlugin(plugin.id),
        sessions: deps.verifier,
      });
    } catch (err) {
      if (err instanceof RouteConflictError) throw new BootError([err.message]);
      if (err instanceof BootError) throw err;
      throw new BootError([`plugin ${plugin.id}: failed to register: ${(err as Error).message}`]);
    }
  }
}

async function listen(server: Server, port: number, host: string, setting: string): Promise<void> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new BootError([`${setting}: ${host}:${port} is already in use`]);
    if (code === 'EACCES') throw new BootError([`${setting}: not allowed to listen on ${host}:${port}`]);
    throw err;
  }
}

function urlOf(server: Server): string {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server is not listening on TCP');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
}

async function closeServer(server: Server | undefined): Promise<void> {
  if (!server?.listening) return;
  const closed = once(server, 'close');
  server.close();
  server.closeAllConnections();
  await closed;
}

/**
 * DECISIONS.md, "Shutdown": stop accepting, drain in-flight requests (bounded by SHUTDOWN_TIMEOUT_MS),
 * then close plugins, flush audit writes, close the pool and stop the embedded Postgres.
 */
async function shutdown(deps: {
  server: Server;
  metricsServer: Server;
  timeoutMs: number;
  closeHooks: ReadonlyArray<() => void | Promise<void>>;
  audit: AuditWriter;
  db: Database;
  embedded: EmbeddedPostgresHandle | undefined;
  logger: Logger;
}): Promise<void> {
  const { server, logger } = deps;
  logger.info({ timeoutMs: deps.timeoutMs }, 'shutting down: draining in-flight requests');
  const drained = once(server, 'close');
  server.close();
  // Keep-alive connections become idle when their in-flight response ends; close them as they do.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), deps.timeoutMs);
  });
  const outcome = await Promise.race([drained.then(() => 'drained' as const), deadline]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    logger.warn('shutdown: drain deadline passed, closing remaining connections');
    server.closeAllConnections();
    await drained;
  }
  for (const hook of [...deps.closeHooks].reverse()) {
    await Promise.resolve()
      .then(hook)
      .catch((err: unknown) => logger.error({ err }, 'shutdown hook failed'));
  }
  await deps.audit.flush();
  await closeServer(deps.metricsServer);
  await deps.db.pool.end();
  await deps.embedded?.stop();
  logger.info('shutdown complete');
}
