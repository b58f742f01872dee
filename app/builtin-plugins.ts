import { authPlugin } from '../plugins/auth/src/index.ts';
import { kycPlugin } from '../plugins/kyc/src/index.ts';
import { messagingPlugin } from '../plugins/messaging/src/index.ts';
import { realtimePlugin } from '../plugins/realtime/src/index.ts';
import type { GatewayPlugin } from '../gateway/src/plugin/types.ts';

/** The plugins GATEWAY_PLUGINS may name: with the CLI beside it, the only code that knows every plugin. */
export const BUILTIN_PLUGINS: readonly GatewayPlugin[] = [
  authPlugin,
  kycPlugin,
  messagingPlugin,
  realtimePlugin,
];
