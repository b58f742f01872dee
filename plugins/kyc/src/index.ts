import { definePlugin } from '../../../gateway/src/plugin/types.ts';
import { kycConfigSchema } from './config.ts';
import { kycErrors } from './error-codes.ts';

/**
 * Identity verification API for API-key tenants (document 001).
 *
 * Registered with the core so GATEWAY_PLUGINS can name it; its routes, tables and settings arrive with
 * the issue that builds it.
 */
export const kycPlugin = definePlugin({
  id: 'kyc',
  dependsOn: [],
  config: kycConfigSchema,
  errors: kycErrors,
  register(ctx) {
    ctx.logger.debug('kyc plugin registered (no routes yet)');
  },
});
