import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'app/**/*.test.ts',
      'gateway/**/*.test.ts',
      'plugins/**/*.test.ts',
      'operator/**/*.test.ts',
      'test/**/*.test.ts',
      'charts/**/*.test.ts',
    ],
    // One PostgreSQL server for the whole run; each test file gets its own database (test/support/database.ts).
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Generous: many tests spawn processes and boot gateways, and must hold on a loaded 2-core machine.
    testTimeout: 60_000,
    // expect.poll's own default (1 s) fails on a loaded machine: wait for conditions generously instead.
    expect: { poll: { timeout: 20_000, interval: 50 } },
    hookTimeout: 60_000,
    // Spawned gateways print their logs; keep the runner's output readable.
    silent: 'passed-only',
  },
});
