import type { PluginManifest } from '../../../gateway/src/plugin-api.ts';
import { messagingConfigSchema } from './config.ts';

/**
 * The messaging plugin without its code: its id, the plugins it needs and its settings. The operator reads
 * this (not index.ts) to check an AuthConfig against the plugin's settings.
 */
export const messagingManifest = {
  id: 'messaging',
  dependsOn: ['auth'],
  config: messagingConfigSchema,
} satisfies PluginManifest<typeof messagingConfigSchema>;
