import { definePlugin } from '../../../gateway/src/plugin/types.ts';
import { authConfigSchema } from './config.ts';
import { authErrors } from './error-codes.ts';

/**
 * Sign-in (document 000): local passwords, LDAP, OIDC single sign-on, passkeys, TOTP, break-glass admins, sessions.
 *
 * Registered with the core so GATEWAY_PLUGINS can name it; its routes, tables and settings arrive with
 * the issue that builds it.
 */
export const authPlugin = definePlugin({
  id: 'auth',
  dependsOn: [],
  config: authConfigSchema,
  errors: authErrors,
  register(ctx) {
    ctx.logger.debug('auth plugin registered (no routes yet)');
  },
});
