// Lint rules: typescript-eslint's type-aware recommended set, plus the house rules from
// ../shared/guides/style.md (no floating promises, named exports only, no `any`), and every regular
// expression linear in its input.
import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

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
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports (style guide, point 6).' },
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
  {
    files: ['eslint.config.js', 'vitest.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
