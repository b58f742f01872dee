import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AuditWriter } from '../audit/audit-writer.ts';
import type { Database } from '../db/database.ts';
import type { EmbeddedPostgresHandle } from '../db/embedded.ts';
import type { Logger } from '../logger.ts';
import { closeServer } from './listeners.ts';

/**
 * Stops in the order that loses no work: stop accepting, drain in-flight requests (bounded by
 * SHUTDOWN_TIMEOUT_MS, docs/configuration.md), then close plugins, flush audit writes, close the pool and
 * stop the embedded Postgres, which the draining requests and the audit flush still need.
 */
export async function shutdown(deps: {
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
