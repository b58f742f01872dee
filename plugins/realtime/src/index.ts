import { definePlugin } from '../../../gateway/src/plugin-api.ts';
import { realtimeErrors } from './errors.ts';
import { realtimeManifest } from './manifest.ts';

/**
 * Realtime delivery (document 002, "Events"): Postgres NOTIFY on service_events forwarded to socket.io rooms. Depends on messaging: the five notify_* trigger functions are on messaging's tables.
 *
 * Registered with the core so GATEWAY_PLUGINS can name it; its routes, tables and settings arrive with
 * the issue that builds it.
 */
export const realtimePlugin = definePlugin({
  ...realtimeManifest,
  errors: realtimeErrors,
  register(ctx) {
    ctx.logger.debug('realtime plugin registered (no routes yet)');
  },
});
