import { definePlugin, migrationsDir } from '../../../gateway/src/plugin-api.ts';
import { realtimeErrors } from './errors.ts';
import { realtimeManifest } from './manifest.ts';
import { registerHealthRoutes } from './routes/health-routes.ts';
import { attachSocketServer } from './routes/socket-server.ts';
import { startRealtimeService } from './service/realtime-service.ts';

/**
 * Realtime delivery (plugins/realtime/README.md, ADR 0009): triggers on the messaging tables append events to
 * a log and NOTIFY; one listener per replica reads the log in order and emits each event to its socket.io
 * rooms; clients authenticate with their session and are replayed what they missed when they reconnect.
 * It depends on messaging because the triggers sit on messaging's tables.
 */
export const realtimePlugin = definePlugin({
  ...realtimeManifest,
  migrations: migrationsDir('realtime'),
  errors: realtimeErrors,
  async register(ctx) {
    const service = await startRealtimeService(ctx, { attach: attachSocketServer });
    registerHealthRoutes(ctx.routes, () => service.status());
    ctx.hooks.health(() => {
      const status = service.status();
      return {
        status: status.listenerConnected ? 'ok' : 'degraded',
        listener: {
          connected: status.listenerConnected,
          reconnects: status.listenerReconnects,
          lastNotifyAt: status.lastNotifyAt?.toISOString() ?? null,
          lastEventId: status.lastEventId,
        },
        connectedSockets: status.connectedSockets,
      };
    });
    ctx.hooks.onReady(({ server }) => service.attach(server));
    ctx.hooks.onShutdown(() => service.dropSockets());
    ctx.hooks.onClose(() => service.stop());
  },
});
