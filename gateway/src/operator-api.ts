/**
 * What the operator may use from the core, and nothing else (the lint boundary in eslint.config.js holds
 * it to this file): the settings schemas it checks an AuthConfig against, so it applies exactly the rules the
 * gateway applies at boot, plus the clock and the stop-signal handling both processes share.
 */
export { createManualClock, systemClock } from './clock.ts';
export type { Clock, ManualClock } from './clock.ts';
export { coreConfigSchema, DEFAULT_PLUGINS } from './config/core-config.ts';
export { secretSchemas } from './config/env-schema.ts';
export { API_AUTH_MODES, gateConfigSchema, gateRequirementProblems } from './gate/config.ts';
export type { ApiAuthMode } from './gate/config.ts';
export { describeStopRequest, waitForStopRequest } from './signals.ts';
export type { PluginManifest } from './plugin/types.ts';
export { GATE_METRIC_NAMES } from './gate/gate-metrics.ts';
