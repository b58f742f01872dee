import type { z } from 'zod';
import { readEnv, type Env } from '../config/read-env.ts';
import type { GatewayPlugin } from './types.ts';

/** A plugin with its parsed configuration, in registration order. */
export interface ResolvedPlugin {
  plugin: GatewayPlugin;
  config: z.output<GatewayPlugin['config']>;
}

export type ResolveResult = { ok: true; plugins: ResolvedPlugin[] } | { ok: false; problems: string[] };

/**
 * Turns GATEWAY_PLUGINS into an ordered list of plugins with parsed config, or every reason it cannot, so
 * a broken deployment fails at boot naming the culprit rather than per request (ADR 0001): unknown ids,
 * duplicates, dependencies that are missing, not enabled or cyclic, invalid plugin config, and error codes
 * outside the plugin's namespace.
 */
export function resolvePlugins(
  requested: readonly string[],
  available: ReadonlyMap<string, GatewayPlugin>,
  env: Env,
): ResolveResult {
  const problems: string[] = [];
  const enabled = new Map<string, GatewayPlugin>();
  const known = [...available.keys()].sort().join(', ');

  for (const id of requested) {
    const plugin = available.get(id);
    if (enabled.has(id)) problems.push(`GATEWAY_PLUGINS: plugin "${id}" is listed twice`);
    else if (!plugin) problems.push(`GATEWAY_PLUGINS: unknown plugin "${id}" (available: ${known})`);
    else enabled.set(id, plugin);
  }

  for (const plugin of enabled.values()) {
    for (const dependency of plugin.dependsOn) {
      if (!available.has(dependency)) {
        problems.push(`plugin ${plugin.id}: depends on unknown plugin "${dependency}"`);
      } else if (!enabled.has(dependency)) {
        problems.push(
          `plugin ${plugin.id}: depends on plugin "${dependency}", which is not enabled (add it to GATEWAY_PLUGINS)`,
        );
      }
    }
    for (const code of Object.keys(plugin.errors.specs)) {
      if (!code.startsWith(`${plugin.id}.`)) {
        problems.push(`plugin ${plugin.id}: error code "${code}" must start with "${plugin.id}."`);
      }
    }
  }

  const order = orderByDependencies([...enabled.values()], problems);
  const plugins: ResolvedPlugin[] = [];
  for (const plugin of order) {
    const config = readEnv(plugin.config, env);
    if (config.ok) plugins.push({ plugin, config: config.value });
    else problems.push(...config.problems.map((problem) => `plugin ${plugin.id}: ${problem}`));
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, plugins };
}

/**
 * Depth-first topological order that keeps the GATEWAY_PLUGINS order wherever dependencies allow, so the
 * order is predictable. Cycles are reported with their path, e.g. `a -> b -> a`.
 */
function orderByDependencies(plugins: readonly GatewayPlugin[], problems: string[]): GatewayPlugin[] {
  const byId = new Map(plugins.map((plugin) => [plugin.id, plugin]));
  const state = new Map<string, 'visiting' | 'done'>();
  const order: GatewayPlugin[] = [];
  const visit = (plugin: GatewayPlugin, path: string[]): void => {
    const seen = state.get(plugin.id);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...path.slice(path.indexOf(plugin.id)), plugin.id].join(' -> ');
      problems.push(`plugins depend on each other in a cycle: ${cycle}`);
      return;
    }
    state.set(plugin.id, 'visiting');
    for (const dependency of plugin.dependsOn) {
      const next = byId.get(dependency);
      if (next) visit(next, [...path, plugin.id]);
    }
    state.set(plugin.id, 'done');
    order.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return order;
}
