import { describe, expect, it } from 'vitest';
import { GATEWAY_PLUGINS } from '../operator/src/api/gateway-plugins.ts';
import { BUILTIN_PLUGINS } from './builtin-plugins.ts';

describe('the built-in plugins', () => {
  it('are the ones the operator knows, in the same order, with the same dependencies and settings', () => {
    // The operator reads each plugin's manifest, not its runtime code; the two lists must never drift.
    const describe = (list: typeof GATEWAY_PLUGINS) =>
      list.map(({ id, dependsOn, config }) => ({ id, dependsOn, config }));
    expect(describe(GATEWAY_PLUGINS)).toEqual(describe(BUILTIN_PLUGINS));
    for (const [i, plugin] of BUILTIN_PLUGINS.entries())
      expect(GATEWAY_PLUGINS[i]?.config).toBe(plugin.config);
  });
});
