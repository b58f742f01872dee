import type { PluginManifest } from '../../../gateway/src/plugin-api.ts';
import { kycConfigSchema } from './config.ts';

/**
 * The identity verification plugin without its code: its id, the plugins it needs and its settings. The operator reads
 * this (not index.ts) to check an AuthConfig against the plugin's settings.
 */
export const kycManifest = {
  id: 'kyc',
  dependsOn: [],
  config: kycConfigSchema,
} satisfies PluginManifest<typeof kycConfigSchema>;
