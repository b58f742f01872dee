import type { PluginManifest } from '../../../gateway/src/plugin-api.ts';
import { realtimeConfigSchema } from './config.ts';

/**
 * The realtime delivery plugin without its code: its id, the plugins it needs and its settings. The operator reads
 * this (not index.ts) to check an AuthConfig against the plugin's settings.
 */
export const realtimeManifest = {
  id: 'realtime',
  dependsOn: ['messaging'],
  config: realtimeConfigSchema,
} satisfies PluginManifest<typeof realtimeConfigSchema>;
