// Lint rules: typescript-eslint's type-aware recommended set, plus the house rules: no floating
// promises, named exports only, no `any`, type-only imports marked as such, every regular expression
// linear in its input, and the import boundaries between the core and the plugins (ADR 0001).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

// Import boundaries (docs/adr/0001-plugin-contract.md, "The plugin API"). A plugin imports from the core
// only gateway/src/plugin-api.ts and never another plugin's folder; the core imports no plugin and not the
// operator. `no-restricted-imports` matches the import string, not the file it resolves to, so a relative
// path is judged by how many folders it climbs: a file `depth` folders below `plugins/<id>/` leaves its
// plugin after `depth + 1` steps up (landing in `plugins/`) and reaches the repository root after
// `depth + 2`. One block per plugin and per folder depth, generated from the folders on disk, makes that
// exact (a plugin's own sub-folder named like another plugin is not mistaken for it).

/**
 * Names of the folders directly inside `folder` (relative to this file).
 * @param {string} folder
 */
function folders(folder) {
  return readdirSync(path.join(import.meta.dirname, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/**
 * How many folders deep the files below `folder` go (0 when all of them sit directly in it).
 * @param {string} folder
 */
function folderDepth(folder) {
  const paths = readdirSync(path.join(import.meta.dirname, folder), { recursive: true, encoding: 'utf8' });
  return Math.max(0, ...paths.map((relative) => relative.split(path.sep).length - 1));
}

/**
 * A regular expression source matching an import string that starts with exactly `steps` steps up.
 * @param {number} steps
 */
function up(steps) {
  return `^(?:\\.\\./){${steps}}(?!\\.\\./)`;
}

/**
 * One lint block per folder depth below `folder`, each with the restricted patterns for that depth.
 * @param {string} folder
 * @param {(depth: number) => object[]} patterns
 * @param {string[]} [ignores]
 */
function perDepth(folder, patterns, ignores = []) {
  return Array.from({ length: folderDepth(folder) + 1 }, (_, depth) => ({
    files: [`${folder}${'*/'.repeat(depth)}*`],
    ignores,
    rules: { 'no-restricted-imports': ['error', { patterns: patterns(depth) }] },
  }));
}

const PLUGIN_IDS = folders('plugins/');

const CORE_INTERNAL = {
  group: ['**/gateway/src/**', '!**/gateway/src/plugin-api.ts'],
  message:
    'A plugin imports the core only through gateway/src/plugin-api.ts (ADR 0001); what it lacks comes through ctx or is added there.',
};
const OTHER_PLUGIN =
  'A plugin never imports another plugin (ADR 0001): plugins meet only through what the core hands them.';

const pluginBoundaries = PLUGIN_IDS.flatMap((id) =>
  perDepth(`plugins/${id}/`, (depth) => [
    CORE_INTERNAL,
    { regex: `${up(depth + 1)}(?!${id}/)`, message: OTHER_PLUGIN },
    { regex: `${up(depth + 2)}plugins/(?!${id}/)`, message: OTHER_PLUGIN },
  ]),
);

// The core knows no plugin and not the operator: the composition root (app/) is the one place that knows
// them all.
const coreBoundaries = perDepth('gateway/src/', (depth) => [
  {
    regex: `${up(depth + 2)}(?:plugins|operator|app)/`,
    message:
      'The core imports no plugin, not the operator and not app/ (ADR 0001); only app/ knows them all.',
  },
]);

// The operator reads the gateway through narrow doors: gateway/src/operator-api.ts for the core's settings
// schemas, clock and stop signals; each plugin's manifest.ts for its settings; the auth plugin's deployment
// rules. Never a plugin's runtime code, and never app/ (which imports the operator). The operator's suites
// (operator/test/) are exempt: they run a real gateway beside it.
const operatorBoundaries = perDepth(
  'operator/',
  (depth) => [
    {
      group: ['**/gateway/src/**', '!**/gateway/src/operator-api.ts'],
      message: 'The operator imports the core only through gateway/src/operator-api.ts (ADR 0001).',
    },
    {
      regex: `${up(depth + 1)}plugins/(?![\\w-]+/src/manifest\\.ts$|auth/src/deployment/validate\\.ts$)`,
      message:
        "The operator imports a plugin only through its manifest.ts (and auth's deployment rules), never its runtime code (ADR 0001).",
    },
    {
      regex: `${up(depth + 1)}app/`,
      message: 'The operator never imports app/, the composition root that imports the operator (ADR 0001).',
    },
  ],
  ['operator/test/**'],
);

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'dist/', 'coverage/', 'bench/out/', 'test/.generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportDefaultDeclaration',
          message:
            'Use named exports: a name is the same at every import site, so it can be searched and renamed.',
        },
      ],
    },
  },
  {
    // ReDoS: the webhook and the API read text from anyone, so no expression may take more than linear
    // time. `no-super-linear-backtracking` finds one match attempt that backtracks exponentially or
    // polynomially (`/(a+)+$/`, `/\s*[:=]?\s*$/`); `no-super-linear-move` finds the quadratic cost of
    // trying every start position (`/\S*@\S*/g` or `/[a-z]+@/` on a long run without `@`). `potential`
    // assumes that something may reject after the match when the expression's use is not visible (kept in
    // an array, passed to a function): the stricter reading, which `certain` misses. Expressions built at
    // run time (`new RegExp(...)`) are invisible to both; they get adversarial-input tests instead (see
    // test/regexp-linear.test.ts).
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignorePartial: false }],
    },
  },
  ...pluginBoundaries,
  ...coreBoundaries,
  ...operatorBoundaries,
  {
    files: ['eslint.config.js', 'vitest.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
