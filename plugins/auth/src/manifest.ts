import type { PluginManifest } from '../../../gateway/src/plugin-api.ts';
import { authConfigSchema } from './config.ts';

/**
 * The sign-in plugin without its code: its id, the plugins it needs and its settings. The operator reads
 * this (not index.ts) to check an AuthConfig against the plugin's settings.
 */
export const authManifest = {
  id: 'auth',
  dependsOn: [],
  config: authConfigSchema,
} satisfies PluginManifest<typeof authConfigSchema>;
