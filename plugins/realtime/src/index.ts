import { definePlugin } from '../../../gateway/src/plugin-api.ts';
import { realtimeErrors } from './errors.ts';
import { realtimeManifest } from './manifest.ts';

/**
 * Realtime delivery: PostgreSQL notifications about conversations, messages and leads, forwarded to socket.io
 * rooms. It depends on messaging because the triggers that raise those notifications sit on messaging's tables.
 *
 * Registered so GATEWAY_PLUGINS can name it and its dependency is checked; it has no routes, tables or settings
 * yet (plugins/realtime/README.md).
 */
export const realtimePlugin = definePlugin({
  ...realtimeManifest,
  errors: realtimeErrors,
  register(ctx) {
    ctx.logger.debug('realtime plugin registered (no routes yet)');
  },
});
