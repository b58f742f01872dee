import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { DestinationStream } from 'pino';
import packageJson from '../../package.json' with { type: 'json' };
import { createAuditWriter, type AuditWriter } from './audit/audit-writer.ts';
import { BootError } from './boot-error.ts';
import { migrationSources, openDatabase, runMigrationsOrRefuse } from './boot/database.ts';
import { createHookCollector } from './boot/hooks.ts';
import { installGate } from './boot/install-gate.ts';
import { closeServer, listenOrRefuse, trackConnections, urlOf } from './boot/listeners.ts';
import { registerPlugins } from './boot/register-plugins.ts';
import { shutdown } from './boot/shutdown.ts';
import { systemClock, type Clock } from './clock.ts';
import { isDevelopment, type CoreConfig } from './config/core-config.ts';
import type { Env } from './config/read-env.ts';
import type { Database } from './db/database.ts';
import type { EmbeddedPostgresHandle } from './db/embedded.ts';
import { readMigrations, type MigrationReport } from './db/migrate.ts';
import { createSessionIssuer, type SessionIssuer } from './gate/session-issuer.ts';
import { createSessionVerifier, type SessionVerifier } from './gate/session-verifier.ts';
import { answerClientErrors } from './http/client-error.ts';
import { registerCoreRoutes, type CoreRouteDeps } from './http/core-routes.ts';
import { expressClasses } from './http/express-classes.ts';
import { createHttpMetrics } from './http/http-metrics.ts';
import { createMetricsServer } from './http/metrics-server.ts';
import { buildPipeline, createExpressApp } from './http/pipeline.ts';
import { createMetricsRegistry } from './http/registry.ts';
import { registerUpstreams } from './http/upstreams.ts';
import { createLoggers, type Logger } from './logger.ts';
import { RouteConflictError, RouteTable, type RouteSummary } from './plugin/route-table.ts';
import type { PluginCommand } from './plugin/command.ts';
import type { GatewayPlugin, ReadyInfo } from './plugin/types.ts';
import { loadSettings, type Settings } from './settings.ts';

export interface GatewayOptions {
  /** Defaults to process.env. */
  env?: Env;
  /**
   * The plugins GATEWAY_PLUGINS may name. The core knows none itself: the composition root (app/) passes
   * the built-in ones, and tests add fixtures.
   */
  available: readonly GatewayPlugin[];
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
  /**
   * Every route of the route table with the schemas it declared, read-only: what tests that must cover
   * each route (the fuzz suite, test/fuzz/) enumerate, so a route added later is covered without them.
   */
  readonly routes: readonly RouteSummary[];
  /** Stops accepting, drains in-flight requests (bounded), closes everything it opened. Idempotent. */
  close(): Promise<void>;
}

/** Boots the gateway: settings → database → migrations → plugins → pipeline → listeners. */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const settings = loadSettings(options.env ?? process.env, pluginMap(options.available));
  const { logger, accessLog, droppedLines } = createLoggers({
    level: settings.core.LOG_LEVEL,
    destination: options.logDestination,
  });
  const clock = options.clock ?? systemClock;
  // What boot has opened so far, undone in reverse order when a later step fails.
  const cleanup: Array<() => Promise<void>> = [];
  const undo = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  };

  try {
    const { db, embedded, expectedMigrations } = await openMigratedDatabase(settings, logger, cleanup);
    const registry = createMetricsRegistry({ droppedLogLines: droppedLines });
    const audit = createAuditWriter({ db, clock, logger });
    const routeTable = new RouteTable();
    const sessions = await createSessions(settings, clock, logger);
    const hooks = createHookCollector(sessions.verifier);
    installGate({ settings, verifier: sessions.verifier, audit, registry, clock, hooks });
    // Created now, listening later: the core routes report on them, the pipeline is attached once built.
    const app = createExpressApp(settings.core.TRUST_PROXY);
    const server = createServer(expressClasses(app));
    const connections = trackConnections(server);
    answerClientErrors(server, logger);
    const metricsServer = createMetricsServer(registry);

    await registerRoutes(settings, {
      db,
      logger,
      audit,
      registry,
      clock,
      routeTable,
      hooks,
      ...sessions,
      expectedMigrations,
      listeners: () => ({ http: server, metrics: metricsServer }),
    });

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
    await startListening(settings, { server, metricsServer }, cleanup);

    const info: ReadyInfo = { server };
    for (const ready of hooks.ready) await ready(info);
    const { url, metricsUrl } = announce(settings, logger, { server, metricsServer });

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= shutdown({
        server,
        connections,
        metricsServer,
        timeoutMs: settings.core.SHUTDOWN_TIMEOUT_MS,
        shutdownHooks: hooks.shutdown,
        closeHooks: hooks.close,
        audit,
        db,
        embedded,
        logger,
      }));
    return { url, metricsUrl, config: settings.core, db, logger, audit, routes: routeTable.list(), close };
  } catch (err) {
    await undo();
    throw err;
  }
}

/**
 * Boot's first step: the database (DATABASE_URL or the embedded PostgreSQL), with every pending migration
 * applied, and the ids of all migrations the enabled plugins ship (what the health report compares with).
 */
async function openMigratedDatabase(
  settings: Settings,
  logger: Logger,
  cleanup: Array<() => Promise<void>>,
): Promise<{ db: Database; embedded: EmbeddedPostgresHandle | undefined; expectedMigrations: string[] }> {
  const { db, embedded } = await openDatabase(settings.core, logger, { join: false });
  cleanup.push(async () => {
    await db.pool.end();
    await embedded?.stop();
  });
  const sources = migrationSources(settings.plugins);
  await runMigrationsOrRefuse(db, sources, logger);
  const expectedMigrations = (await readMigrations(sources)).map((file) => `${file.scope}/${file.name}`);
  return { db, embedded, expectedMigrations };
}

/** The session verifier the gate's layer 2 uses and the issuer the auth plugin signs in with, on one secret. */
async function createSessions(
  settings: Settings,
  clock: Clock,
  logger: Logger,
): Promise<{ verifier: SessionVerifier; issuer: SessionIssuer }> {
  const authSecrets = sessionSecrets(settings, logger);
  const verifier = await createSessionVerifier({
    secrets: authSecrets,
    cookieName: settings.gate.sessionCookie,
    clock,
    cacheSize: settings.gate.sessionCacheSize,
  });
  const issuer = await createSessionIssuer({
    secrets: authSecrets,
    cookieName: settings.gate.sessionCookie,
    clock,
  });
  return { verifier, issuer };
}

/**
 * Fills the route table in the order that decides conflicts: the core's routes, then the GATEWAY_UPSTREAMS
 * proxies, then each plugin's (in dependency order). A route claimed twice refuses boot.
 */
async function registerRoutes(
  settings: Settings,
  deps: Parameters<typeof registerPlugins>[1] & {
    expectedMigrations: readonly string[];
    listeners: CoreRouteDeps['listeners'];
  },
): Promise<void> {
  const { routeTable, logger } = deps;
  registerCoreRoutes(routeTable.registrar('core'), {
    name: packageJson.name,
    version: packageJson.version,
    plugins: settings.plugins.map(({ plugin }) => plugin.id),
    db: deps.db,
    routeTable,
    expectedMigrations: deps.expectedMigrations,
    healthChecks: deps.hooks.healthChecks,
    listeners: deps.listeners,
    healthTimeoutMs: 2_000,
    apiAuthMode: settings.gate.mode,
  });
  try {
    registerUpstreams(routeTable.registrar('upstream'), settings.gate.upstreams, {
      timeoutMs: settings.gate.upstreamTimeoutMs,
      underscoreHeaders: settings.gate.upstreamUnderscoreHeaders,
      logger,
    });
  } catch (err) {
    if (err instanceof RouteConflictError) throw new BootError([`GATEWAY_UPSTREAMS: ${err.message}`]);
    throw err;
  }
  await registerPlugins(settings, deps);
}

/** The `gateway listening` line: where the gateway answers, and how it runs. */
function announce(
  settings: Settings,
  logger: Logger,
  { server, metricsServer }: { server: Server; metricsServer: Server },
): { url: string; metricsUrl: string } {
  const url = urlOf(server);
  const metricsUrl = urlOf(metricsServer);
  logger.info(
    {
      url,
      metricsUrl,
      // The process to signal; under `npm start` it is not the pid a process manager sees first.
      pid: process.pid,
      apiAuthMode: settings.gate.mode,
      plugins: settings.plugins.map(({ plugin }) => plugin.id),
    },
    'gateway listening',
  );
  return { url, metricsUrl };
}

/** Binds the public listener, then the metrics listener; each is closed again if boot fails later. */
async function startListening(
  settings: Settings,
  { server, metricsServer }: { server: Server; metricsServer: Server },
  cleanup: Array<() => Promise<void>>,
): Promise<void> {
  await listenOrRefuse(server, settings.core.PORT, settings.core.HOST, 'PORT');
  cleanup.push(() => closeServer(server));
  await listenOrRefuse(
    metricsServer,
    settings.core.METRICS_PORT,
    settings.core.METRICS_HOST ?? settings.core.HOST,
    'METRICS_PORT',
  );
  cleanup.push(() => closeServer(metricsServer));
}

/** `gatehouse migrate`: the same settings and migrations as boot, without serving. */
export async function runMigrations(options: GatewayOptions): Promise<MigrationReport> {
  const settings = loadSettings(options.env ?? process.env, pluginMap(options.available));
  const { logger } = createLoggers({ level: settings.core.LOG_LEVEL, destination: options.logDestination });
  const { db, embedded } = await openDatabase(settings.core, logger, { join: true });
  try {
    return await runMigrationsOrRefuse(db, migrationSources(settings.plugins), logger);
  } finally {
    await db.pool.end();
    await embedded?.stop();
  }
}

function pluginMap(available: readonly GatewayPlugin[]): Map<string, GatewayPlugin> {
  return new Map(available.map((plugin) => [plugin.id, plugin]));
}

/**
 * A plugin's `gatehouse` subcommand (e.g. `admin create`): the same settings and migrations as `serve`,
 * then the command with a database, the audit writer and the process's stdio.
 */
export async function runPluginCommand(
  options: GatewayOptions,
  plugin: GatewayPlugin,
  command: PluginCommand,
  values: Readonly<Record<string, string | boolean | undefined>>,
): Promise<number> {
  const settings = loadSettings(options.env ?? process.env, pluginMap(options.available));
  const resolved = settings.plugins.find((entry) => entry.plugin.id === plugin.id);
  if (!resolved)
    throw new BootError([
      `GATEWAY_PLUGINS: "${command.name.join(' ')}" needs the ${plugin.id} plugin, which is not enabled`,
    ]);
  const { logger } = createLoggers({ level: settings.core.LOG_LEVEL, destination: options.logDestination });
  const clock = options.clock ?? systemClock;
  const { db, embedded } = await openDatabase(settings.core, logger, { join: true });
  try {
    await runMigrationsOrRefuse(db, migrationSources(settings.plugins), logger);
    const audit = createAuditWriter({ db, clock, logger });
    const code = await command.run(
      {
        config: resolved.config,
        core: settings.core,
        db,
        audit,
        logger: logger.child({ plugin: plugin.id, command: command.name.join(' ') }),
        clock,
        io: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
      },
      values,
    );
    await audit.flush();
    return code;
  } finally {
    await db.pool.end();
    await embedded?.stop();
  }
}

/** The plugin commands the CLI offers, with their plugin. */
export function pluginCommands(
  options: GatewayOptions,
): Array<{ plugin: GatewayPlugin; command: PluginCommand }> {
  return [...pluginMap(options.available).values()].flatMap((plugin) =>
    (plugin.commands ?? []).map((command) => ({ plugin, command: command })),
  );
}

/**
 * AUTH_SECRET, or in development without one a random secret for this process: `npm start` works on a
 * bare machine, and its sessions simply end with the process. Outside development the auth plugin and the
 * gate's warn/enforce modes refuse to boot without AUTH_SECRET.
 */
function sessionSecrets(settings: Settings, logger: Logger): readonly string[] {
  if (settings.gate.authSecrets.length > 0 || !isDevelopment(settings.core)) return settings.gate.authSecrets;
  logger.warn(
    'AUTH_SECRET is unset: development uses a random per-process secret; sessions end with the process',
  );
  return [randomBytes(32).toString('base64url')];
}
