import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { integer } from '../config/env-schema.ts';
import { defineErrors } from '../errors/catalogue.ts';
import { resolvePlugins } from './loader.ts';
import { definePlugin, type GatewayPlugin } from './types.ts';

function plugin(id: string, dependsOn: string[] = [], extra: Partial<GatewayPlugin> = {}): GatewayPlugin {
  return definePlugin({
    id,
    dependsOn,
    config: z.object({}),
    errors: defineErrors({}),
    register() {},
    ...extra,
  });
}

const available = (...plugins: GatewayPlugin[]) => new Map(plugins.map((p) => [p.id, p]));

describe('resolvePlugins', () => {
  it('orders plugins after their dependencies, otherwise keeping the listed order', () => {
    const result = resolvePlugins(
      ['d', 'c', 'a', 'b'],
      available(plugin('a'), plugin('b', ['a']), plugin('c', ['b']), plugin('d')),
      {},
    );
    expect(result.ok && result.plugins.map(({ plugin: p }) => p.id)).toEqual(['d', 'a', 'b', 'c']);
  });

  it('reports every problem at once: unknown, duplicate, unknown and disabled dependencies', () => {
    const result = resolvePlugins(
      ['a', 'a', 'x', 'b'],
      available(plugin('a', ['ghost']), plugin('b', ['c']), plugin('c')),
      {},
    );
    expect(result).toEqual({
      ok: false,
      problems: [
        'GATEWAY_PLUGINS: plugin "a" is listed twice',
        'GATEWAY_PLUGINS: unknown plugin "x" (available: a, b, c)',
        'plugin a: depends on unknown plugin "ghost"',
        'plugin b: depends on plugin "c", which is not enabled (add it to GATEWAY_PLUGINS)',
      ],
    });
  });

  it('names a dependency cycle with its path', () => {
    const result = resolvePlugins(
      ['a', 'b', 'c'],
      available(plugin('a', ['b']), plugin('b', ['c']), plugin('c', ['a'])),
      {},
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems).toContain(
      'plugins depend on each other in a cycle: a -> b -> c -> a',
    );
  });

  it('parses each plugin config from the environment and reports invalid values per plugin', () => {
    const configured = plugin('a', [], { config: z.object({ A_LIMIT: integer(3, 1, 9) }) });
    expect(resolvePlugins(['a'], available(configured), { A_LIMIT: '7' })).toMatchObject({
      ok: true,
      plugins: [{ config: { A_LIMIT: 7 } }],
    });
    expect(resolvePlugins(['a'], available(configured), { A_LIMIT: '70' })).toEqual({
      ok: false,
      problems: ['plugin a: A_LIMIT: must be at most 9 (got "70")'],
    });
  });

  it('refuses error codes outside the plugin id namespace', () => {
    const sloppy = plugin('kyc', [], {
      errors: defineErrors({ 'quota.exhausted': { status: 402, title: 'x' } }),
    });
    expect(resolvePlugins(['kyc'], available(sloppy), {})).toEqual({
      ok: false,
      problems: ['plugin kyc: error code "quota.exhausted" must start with "kyc."'],
    });
  });
});
