import {
  coreConfigSchema,
  isDevelopment,
  withDevelopmentDefaults,
  type CoreConfig,
} from './config/core-config.ts';
import {
  checkGateConfig,
  gateConfigSchema,
  gateRequirementProblems,
  type GateConfig,
} from './gate/config.ts';
import { readEnv, type Env } from './config/read-env.ts';
import { BootError } from './boot-error.ts';
import { resolvePlugins, type ResolvedPlugin } from './plugin/loader.ts';
import type { GatewayPlugin } from './plugin/types.ts';

export interface Settings {
  core: CoreConfig;
  gate: GateConfig;
  plugins: ResolvedPlugin[];
}

/**
 * Parses every environment variable once, the core's and each enabled plugin's, and throws one BootError
 * listing every problem (docs/configuration.md, "Invalid configuration").
 */
export function loadSettings(env: Env, available: ReadonlyMap<string, GatewayPlugin>): Settings {
  const parsed = readEnv(coreConfigSchema, env);
  const core = parsed.ok ? { ...parsed, value: withDevelopmentDefaults(parsed.value) } : parsed;
  // The plugins are checked even when other core variables are bad, so one run reports everything.
  const pluginList = readEnv(coreConfigSchema.pick({ GATEWAY_PLUGINS: true }), env);
  const requested = pluginList.ok ? pluginList.value.GATEWAY_PLUGINS : [];
  const plugins = resolvePlugins(requested, available, env);
  const gateEnv = readEnv(gateConfigSchema, env);
  const development = core.ok ? isDevelopment(core.value) : env.APP_ENV === 'development';
  const gate = gateEnv.ok
    ? checkGateConfig(gateEnv.value, development, core.ok ? core.value.APP_BASE_URL : env.APP_BASE_URL)
    : { ok: false as const, problems: [...gateEnv.problems, ...gateRequirementProblems(env, development)] };
  const problems = [
    ...(core.ok ? [] : core.problems),
    ...(gate.ok ? [] : gate.problems),
    ...(plugins.ok ? [] : plugins.problems),
  ];
  if (!core.ok || !gate.ok || !plugins.ok) throw new BootError(problems);
  return { core: core.value, gate: gate.value, plugins: plugins.plugins };
}
