import type { Registry } from 'prom-client';
import type { AuditWriter } from '../audit/audit-writer.ts';
import { BootError } from '../boot-error.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import type { SessionIssuer } from '../gate/session-issuer.ts';
import type { SessionVerifier } from '../gate/session-verifier.ts';
import type { Logger } from '../logger.ts';
import { RouteConflictError, type RouteTable } from '../plugin/route-table.ts';
import type { Settings } from '../settings.ts';
import type { HookCollector } from './hooks.ts';

/** Registers each plugin in dependency order with its context; any failure refuses boot, naming the plugin. */
export async function registerPlugins(
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
    issuer: SessionIssuer;
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
        gate: { mode: settings.gate.mode },
        sessions: {
          verify: (token) => deps.verifier.verify(token),
          issue: (claims, maxAge) => deps.issuer.issue(claims, maxAge),
          cookieName: settings.gate.sessionCookie,
        },
      });
    } catch (err) {
      if (err instanceof RouteConflictError) throw new BootError([err.message]);
      if (err instanceof BootError) throw err;
      throw new BootError([`plugin ${plugin.id}: failed to register: ${(err as Error).message}`]);
    }
  }
}
