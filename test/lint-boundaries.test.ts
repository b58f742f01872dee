/**
 * The import boundaries of ADR 0001 ("The plugin API") hold through the linter: a plugin that imports a
 * core file other than gateway/src/plugin-api.ts, or another plugin, fails `npm run lint`, and so does the
 * core importing a plugin, the operator or app/, and the operator importing more than its narrow exports. The probes are linted as if they sat at the given paths, with
 * the boundary blocks exactly as eslint.config.js builds them (without its slow type-aware rest).
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const RULE = 'no-restricted-imports';

async function projectConfig(): Promise<Linter.Config[]> {
  const { default: config } = (await import(pathToFileURL(path.join(root, 'eslint.config.js')).href)) as {
    default: Linter.Config[];
  };
  return config;
}

let boundaries: ESLint;

beforeAll(async () => {
  const blocks = (await projectConfig()).filter((block) => block.rules?.[RULE] !== undefined);
  expect(blocks.length).toBeGreaterThan(0);
  boundaries = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...blocks],
  });
});

/** The messages of the boundary rule for `source` placed at `file` (relative to the repository). */
async function boundaryMessages(file: string, source: string): Promise<string[]> {
  const [result] = await boundaries.lintText(source, { filePath: path.join(root, file) });
  const messages = result?.messages ?? [];
  // A parse error would hide the rule: the probes must be valid TypeScript.
  expect(messages.filter((m) => m.ruleId === null)).toEqual([]);
  return messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

describe('a plugin imports the core only through the plugin API', () => {
  it.each([
    ['a core file', "import type { Database } from '../../../gateway/src/db/database.ts';"],
    ['a core value', "import { systemClock } from '../../../gateway/src/clock.ts';"],
    ['a core file, re-exported', "export { SESSION_HEADER } from '../../../gateway/src/gate/gate.ts';"],
  ])('refuses %s', { timeout: 60_000 }, async (_name, source) => {
    const messages = await boundaryMessages('plugins/kyc/src/x.ts', source);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('gateway/src/plugin-api.ts');
  });

  it(
    'accepts the plugin API, its own files, shared test support and packages',
    { timeout: 60_000 },
    async () => {
      const source = [
        "import { definePlugin, type Database } from '../../../../gateway/src/plugin-api.ts';",
        "import { kycErrors } from '../errors.ts';",
        "import { kycConfigSchema } from '../../../kyc/src/config.ts';",
        "import { ADVERSARIAL } from '../../../../test/support/adversarial-text.ts';",
        "import { z } from 'zod';",
        'export const used = [definePlugin, kycErrors, kycConfigSchema, ADVERSARIAL, z] as const;',
        'export type Used = Database;',
      ].join('\n');
      expect(await boundaryMessages('plugins/kyc/src/api/x.ts', source)).toEqual([]);
    },
  );
});

describe('a plugin never imports another plugin', () => {
  it.each([
    ['plugins/kyc/src/x.ts', "import { authPlugin } from '../../auth/src/index.ts';"],
    ['plugins/kyc/src/api/x.ts', "import type { LiveAccount } from '../../../auth/src/store/user-store.ts';"],
    ['plugins/kyc/src/api/x.ts', "export * from '../../../../plugins/messaging/src/index.ts';"],
    [
      'plugins/messaging/src/conversation/replies/x.ts',
      "import { kycPlugin } from '../../../../kyc/src/index.ts';",
    ],
  ])('refuses %s: %s', { timeout: 60_000 }, async (file, source) => {
    const messages = await boundaryMessages(file, source);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('never imports another plugin');
  });

  it('accepts a sub-folder of its own named like another plugin', { timeout: 60_000 }, async () => {
    // plugins/messaging/src/conversation/auth/ would be messaging's own folder, not the auth plugin.
    const source = "import { check } from '../auth/check.ts';\nexport const used = check;";
    expect(await boundaryMessages('plugins/messaging/src/conversation/x.ts', source)).toEqual([]);
  });
});

describe('the core imports no plugin, not the operator and not the composition root', () => {
  it.each([
    ['gateway/src/gateway.ts', "import { authPlugin } from '../../plugins/auth/src/index.ts';"],
    ['gateway/src/boot/x.ts', "import { kycPlugin } from '../../../plugins/kyc/src/index.ts';"],
    ['gateway/src/boot/x.ts', "import { operatorCommand } from '../../../operator/src/cli/command.ts';"],
    ['gateway/src/x.ts', "import { BUILTIN_PLUGINS } from '../../app/builtin-plugins.ts';"],
  ])('refuses %s: %s', { timeout: 60_000 }, async (file, source) => {
    const messages = await boundaryMessages(file, source);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('core imports no plugin');
  });

  it(
    'leaves the composition root free to import every plugin and the operator',
    { timeout: 60_000 },
    async () => {
      const source = [
        "import { authPlugin } from '../plugins/auth/src/index.ts';",
        "import { runOperatorCommand } from '../operator/src/runtime/command.ts';",
        "import { startGateway } from '../gateway/src/gateway.ts';",
        'export const used = [authPlugin, runOperatorCommand, startGateway] as const;',
      ].join('\n');
      expect(await boundaryMessages('app/cli.ts', source)).toEqual([]);
    },
  );
});

describe('the operator reads the gateway only through its narrow exports', () => {
  it.each([
    ['a core file', "import { systemClock } from '../../../gateway/src/clock.ts';", 'operator-api.ts'],
    [
      "a plugin's runtime code",
      "import { kycPlugin } from '../../../plugins/kyc/src/index.ts';",
      'manifest.ts',
    ],
    [
      "a plugin's config",
      "import { kycConfigSchema } from '../../../plugins/kyc/src/config.ts';",
      'manifest.ts',
    ],
    [
      'the composition root',
      "import { BUILTIN_PLUGINS } from '../../../app/builtin-plugins.ts';",
      'never imports app/',
    ],
  ])('refuses %s', { timeout: 60_000 }, async (_name, source, expected) => {
    const messages = await boundaryMessages('operator/src/api/x.ts', source);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(expected);
  });

  it(
    'accepts the operator API, the plugin manifests and the auth deployment rules',
    { timeout: 60_000 },
    async () => {
      const source = [
        "import { systemClock } from '../../../gateway/src/operator-api.ts';",
        "import { kycManifest } from '../../../plugins/kyc/src/manifest.ts';",
        "import { AUTH_MODES } from '../../../plugins/auth/src/deployment/validate.ts';",
        'export const used = [systemClock, kycManifest, AUTH_MODES] as const;',
      ].join('\n');
      expect(await boundaryMessages('operator/src/api/x.ts', source)).toEqual([]);
    },
  );
});

describe('the boundary blocks are in force in the whole configuration', () => {
  it(
    'for a plugin, a core and an operator file, no later block turning them off',
    { timeout: 60_000 },
    async () => {
      const linter = new ESLint({ cwd: root });
      for (const file of [
        'plugins/kyc/src/index.ts',
        'gateway/src/gateway.ts',
        'operator/src/api/gateway-variables.ts',
      ]) {
        const config = (await linter.calculateConfigForFile(path.join(root, file))) as Linter.Config;
        const [severity, options] = (config.rules?.[RULE] ?? []) as [number?, { patterns?: unknown[] }?];
        expect(severity, file).toBe(2);
        expect(options?.patterns?.length, file).toBeGreaterThan(0);
      }
    },
  );
});
