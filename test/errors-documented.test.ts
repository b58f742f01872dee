/** Every error code a client can receive is documented (style guide, point 5). */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PLUGINS } from '../gateway/src/builtin-plugins.ts';
import { coreErrors } from '../gateway/src/errors/core-errors.ts';

describe('error catalogues', () => {
  it('every core code is in docs/errors.md', async () => {
    const doc = await readFile(new URL('../docs/errors.md', import.meta.url), 'utf8');
    for (const code of Object.keys(coreErrors.specs)) expect(doc, code).toContain(`\`${code}\``);
  });

  it.each(BUILTIN_PLUGINS.map((plugin) => [plugin.id, plugin] as const))(
    'every %s code is in its README',
    async (id, plugin) => {
      const doc = await readFile(new URL(`../plugins/${id}/README.md`, import.meta.url), 'utf8');
      for (const code of Object.keys(plugin.errors.specs)) expect(doc, code).toContain(`\`${code}\``);
    },
  );
});
