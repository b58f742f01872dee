import { once } from 'node:events';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { AuditWriter } from '../audit/audit-writer.ts';
import type { Database } from '../db/database.ts';
import type { EmbeddedPostgresHandle } from '../db/embedded.ts';
import type { Logger } from '../logger.ts';
import { closeServer } from './listeners.ts';

type Hook = () => void | Promise<void>;

/**
 * Stops in the order that loses no work: stop accepting, run the `onShutdown` hooks (plugins end their
 * long-lived connections) while in-flight requests drain, both bounded by SHUTDOWN_TIMEOUT_MS
 * (docs/configuration.md), then close plugins, flush audit writes, close the pool and stop the embedded
 * Postgres, which the draining requests and the audit flush still need.
 */
export async function shutdown(deps: {
  server: Server;
  /** Every open connection of `server` (boot/listeners.ts, `trackConnections`). */
  connections: ReadonlySet<Socket>;
  metricsServer: Server;
  timeoutMs: number;
  shutdownHooks: readonly Hook[];
  closeHooks: readonly Hook[];
  audit: AuditWriter;
  db: Database;
  embedded: EmbeddedPostgresHandle | undefined;
  logger: Logger;
}): Promise<void> {
  const { logger } = deps;
  logger.info({ timeoutMs: deps.timeoutMs }, 'shutting down: draining in-flight requests');
  await drain(deps);
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

/**
 * Stops accepting, starts the `onShutdown` hooks, and waits until the server has no connection left and
 * every hook has settled, or the deadline passes: then whatever connection remains is cut.
 */
async function drain(deps: Parameters<typeof shutdown>[0]): Promise<void> {
  const { server, logger } = deps;
  let open = true;
  const drained = once(server, 'close').then(() => {
    open = false;
  });
  server.close();
  let hooksPending = true;
  const hooks = Promise.all(deps.shutdownHooks.map((hook) => runLogged(hook, logger))).then(() => {
    hooksPending = false;
  });
  // Keep-alive connections become idle when their in-flight response ends; close them as they do.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), deps.timeoutMs);
  });
  const done = Promise.all([drained, hooks]).then(() => 'drained' as const);
  const outcome = await Promise.race([done, deadline]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    if (hooksPending) logger.warn('shutdown: onShutdown hooks still running at the drain deadline');
    if (open) {
      logger.warn('shutdown: drain deadline passed, closing remaining connections');
      server.closeAllConnections();
      // Upgraded connections (WebSockets) have left HTTP: closeAllConnections() does not see them.
      for (const socket of deps.connections) socket.destroy();
    }
    await drained;
  }
}

async function runLogged(hook: Hook, logger: Logger): Promise<void> {
  try {
    await hook();
  } catch (err) {
    logger.error({ err }, 'shutdown hook failed');
  }
}
