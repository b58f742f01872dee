import { authManifest } from '../../../plugins/auth/src/manifest.ts';
import { kycManifest } from '../../../plugins/kyc/src/manifest.ts';
import { messagingManifest } from '../../../plugins/messaging/src/manifest.ts';
import { realtimeManifest } from '../../../plugins/realtime/src/manifest.ts';
import type { PluginManifest } from '../../../gateway/src/operator-api.ts';

/**
 * The gateway's built-in plugins as the operator knows them: their manifests (id, dependencies, settings),
 * in the gateway's order, without their runtime code. A test beside the composition root
 * (app/builtin-plugins.test.ts) holds this list to the gateway's own.
 */
export const GATEWAY_PLUGINS: readonly PluginManifest[] = [
  authManifest,
  kycManifest,
  messagingManifest,
  realtimeManifest,
];
