import { definePlugin } from '../../../gateway/src/plugin/types.ts';
import { messagingConfigSchema } from './config.ts';
import { messagingErrors } from './error-codes.ts';

/**
 * Messaging and lead capture (document 002): provider webhook, intent classification, lead capture, escalation, dashboard REST API. Depends on auth: notifications, escalations and the agent inbox belong to staff accounts.
 *
 * Registered with the core so GATEWAY_PLUGINS can name it; its routes, tables and settings arrive with
 * the issue that builds it.
 */
export const messagingPlugin = definePlugin({
  id: 'messaging',
  dependsOn: ['auth'],
  config: messagingConfigSchema,
  errors: messagingErrors,
  register(ctx) {
    ctx.logger.debug('messaging plugin registered (no routes yet)');
  },
});
