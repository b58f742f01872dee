/**
 * Boot refusals and the CLI, each through the real `gatehouse` process: a non-zero exit and a message that
 * names the culprit (docs/configuration.md, "Invalid configuration").
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { z } from 'zod';
import { defineErrors } from '../src/errors/catalogue.ts';
import { BootError } from '../src/boot-error.ts';
import { startGateway } from '../src/gateway.ts';
import { definePlugin } from '../src/plugin/types.ts';
import { fixturePlugin } from '../../test/fixtures/fixture-plugin.ts';
import { endsWithTest, FIXTURE_CLI, freePort, processEnv, spawnGateway } from '../../test/support/process.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

async function boot(env: Record<string, string>, args = ['serve'], entry?: string) {
  const child = endsWithTest(
    spawnGateway({
      entry,
      args,
      env: processEnv({ DATABASE_URL: db.url, ...env }),
    }),
  );
  const code = await child.exited;
  return { code, stderr: child.stderr(), stdout: child.stdout() };
}

describe('refuses to boot', () => {
  it('on an unknown plugin id', async () => {
    const { code, stderr } = await boot({ GATEWAY_PLUGINS: 'auth,billing' });
    expect(code).toBe(1);
    expect(stderr).toContain('Gatehouse cannot start');
    expect(stderr).toContain(
      'GATEWAY_PLUGINS: unknown plugin "billing" (available: auth, kyc, messaging, realtime)',
    );
  });

  it('on a missing dependency', async () => {
    const { code, stderr } = await boot({ GATEWAY_PLUGINS: 'messaging' });
    expect(code).toBe(1);
    expect(stderr).toContain(
      'plugin messaging: depends on plugin "auth", which is not enabled (add it to GATEWAY_PLUGINS)',
    );
  });

  it('on invalid config, listing every bad variable at once', async () => {
    const { code, stderr } = await boot({
      PORT: 'eighty',
      METRICS_PORT: '70000',
      LOG_LEVEL: 'loud',
      CORS_ORIGINS: 'https://ok.example.com,*',
      DATABASE_URL: 'mysql://root:s3cr3t-value@db/app',
      SHUTDOWN_TIMEOUT_MS: '-5',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('PORT: must be a port number (got "eighty")');
    expect(stderr).toContain('METRICS_PORT: must be 0..65535 (got "70000")');
    expect(stderr).toContain(
      'LOG_LEVEL: must be one of: fatal, error, warn, info, debug, trace, silent (got "loud")',
    );
    expect(stderr).toMatch(/CORS_ORIGINS: .*origin/);
    expect(stderr).toContain('DATABASE_URL: must be a postgres:// URL');
    expect(stderr).toContain('SHUTDOWN_TIMEOUT_MS: must be at least 0 (got "-5")');
    // A secret's value is never echoed back.
    expect(stderr).not.toContain('s3cr3t-value');
    expect(stderr.match(/^ {2}- /gm)).toHaveLength(6);
  });

  it('reports plugin problems together with core ones, and names each bad entry', async () => {
    const { code, stderr } = await boot({
      GATEWAY_PLUGINS: 'auth,nope',
      TRUST_PROXY: '10.0.0.0/33',
      CORS_ORIGINS: 'https://ok.example.com,https://bad.example.com/path,*',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('GATEWAY_PLUGINS: unknown plugin "nope"');
    expect(stderr).toMatch(
      /TRUST_PROXY: must be true, false, a hop count or addresses\/CIDRs \(invalid range on address: 10\.0\.0\.0\/33\)/,
    );
    expect(stderr).toContain('CORS_ORIGINS: "https://bad.example.com/path" is not an origin');
    expect(stderr).toContain('CORS_ORIGINS: "*" is not an origin');
    expect(stderr).not.toContain('"https://ok.example.com" is not');
  });

  it('when the database cannot be reached, naming it without the password', async () => {
    const port = await freePort();
    const { code, stderr } = await boot({
      DATABASE_URL: `postgres://app:pw-should-not-show@127.0.0.1:${port}/gatehouse`,
    });
    expect(code).toBe(1);
    expect(stderr).toContain(
      `DATABASE_URL: cannot use the database at 127.0.0.1:${port}/gatehouse (ECONNREFUSED`,
    );
    expect(stderr).not.toContain('pw-should-not-show');
    expect(stderr).not.toMatch(/\n[ \t]+at /);
  });

  it('when a secret is given both directly and as NAME_FILE, or its file is unreadable', async () => {
    const both = await boot({ DATABASE_URL_FILE: '/nonexistent/db-url' });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('DATABASE_URL: set either DATABASE_URL or DATABASE_URL_FILE, not both');
    const missing = await boot({ DATABASE_URL: '', DATABASE_URL_FILE: '/nonexistent/db-url' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('DATABASE_URL_FILE: cannot read /nonexistent/db-url (ENOENT)');
  });

  it('when an applied migration was changed, naming the file', async () => {
    const changed = await createTestDatabase();
    try {
      // The template applied core/0001 with the file's checksum; a different recorded checksum is
      // exactly what the runner sees after someone edits the applied file.
      await changed.pool.query(
        "UPDATE gatehouse_migrations SET checksum = repeat('0', 64) WHERE scope = 'core' AND name = '0001_audit_log.sql'",
      );
      for (const args of [['serve'], ['migrate']]) {
        const { code, stderr } = await boot({ DATABASE_URL: changed.url }, args);
        expect(code).toBe(1);
        expect(stderr).toContain('migration core/0001_audit_log.sql was changed after it was applied');
      }
    } finally {
      await changed.drop();
    }
  });

  it('without API_AUTH_MODE outside development, and in development defaults to disabled', async () => {
    const { code, stderr } = await boot({ API_AUTH_MODE: '' });
    expect(code).toBe(1);
    expect(stderr).toContain('API_AUTH_MODE: required outside development (disabled, warn or enforce)');
    const dev = endsWithTest(
      spawnGateway({
        args: ['serve'],
        env: {
          APP_ENV: 'development',
          HOST: '127.0.0.1',
          PORT: '0',
          METRICS_PORT: '0',
          DATABASE_URL: db.url,
        },
      }),
    );
    await dev.waitForOutput(/"apiAuthMode":"disabled"/);
    dev.child.kill('SIGTERM');
    expect(await dev.exited).toBe(0);
  });

  it('reports a missing secret in the same run as a bad gate variable', async () => {
    const { code, stderr } = await boot({
      API_AUTH_MODE: 'warn',
      AUTH_SECRET: '',
      INTERNAL_API_SECRET: 'too-short',
      UPSTREAM_TIMEOUT_MS: 'soon',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('INTERNAL_API_SECRET[0]: each secret must be at least 32 characters');
    expect(stderr).toContain('UPSTREAM_TIMEOUT_MS: must be an integer');
    expect(stderr).toContain('AUTH_SECRET: required when API_AUTH_MODE is warn');
  });

  it('in enforce mode without the secrets', async () => {
    const { code, stderr } = await boot({ API_AUTH_MODE: 'enforce', AUTH_SECRET: '' });
    expect(code).toBe(1);
    expect(stderr).toContain('INTERNAL_API_SECRET: required when API_AUTH_MODE is enforce');
    expect(stderr).toContain('AUTH_SECRET: required when API_AUTH_MODE is enforce');
  });

  it('on invalid plugin config, naming the plugin', async () => {
    const { code, stderr } = await boot(
      { GATEWAY_PLUGINS: 'fixture', FIXTURE_LIMIT: '99', FIXTURE_HEALTH: 'great' },
      ['serve'],
      FIXTURE_CLI,
    );
    expect(code).toBe(1);
    expect(stderr).toContain(
      'plugin fixture: FIXTURE_HEALTH: must be one of: ok, degraded, down (got "great")',
    );
    expect(stderr).toContain('plugin fixture: FIXTURE_LIMIT: must be at most 10 (got "99")');
  });

  it('when two plugins claim the same route, naming both', async () => {
    const squatter = definePlugin({
      id: 'squatter',
      dependsOn: [],
      config: z.object({}),
      errors: defineErrors({}),
      register(ctx) {
        ctx.routes.add({ method: 'POST', path: '/fixture/echo', handler: () => undefined });
      },
    });
    const attempt = startGateway({
      env: processEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', GATEWAY_PLUGINS: 'fixture,squatter' }),
      available: [fixturePlugin, squatter],
    });
    await expect(attempt).rejects.toThrow(BootError);
    await expect(attempt).rejects.toThrow('route POST /fixture/echo is claimed by both fixture and squatter');
  });

  it('when two plugins set a session resolver, naming both', async () => {
    const resolver = (id: string) =>
      definePlugin({
        id,
        dependsOn: [],
        config: z.object({}),
        errors: defineErrors({}),
        register(ctx) {
          ctx.hooks.sessionResolver((identity) => identity);
        },
      });
    const attempt = startGateway({
      env: processEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', GATEWAY_PLUGINS: 'first,second' }),
      available: [resolver('first'), resolver('second')],
    });
    await expect(attempt).rejects.toThrow(BootError);
    await expect(attempt).rejects.toThrow(
      'plugin second: ctx.hooks.sessionResolver: plugin first already resolves session identities',
    );
  });

  it('when the port is taken', async () => {
    const port = await freePort();
    const { createServer } = await import('node:net');
    const blocker = createServer().listen(port, '127.0.0.1');
    try {
      const { code, stderr } = await boot({ PORT: String(port) });
      expect(code).toBe(1);
      expect(stderr).toContain(`PORT: 127.0.0.1:${port} is already in use`);
    } finally {
      blocker.close();
    }
  });
});

describe('the gatehouse CLI', () => {
  it('prints help and version', async () => {
    const help = await boot({}, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: gatehouse <command>');
    const version = await boot({}, ['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('rejects an unknown command with usage and exit 64', async () => {
    const { code, stderr } = await boot({}, ['frobnicate']);
    expect(code).toBe(64);
    expect(stderr).toContain('unknown command "frobnicate"');
  });

  it('reads a secret from NAME_FILE', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gatehouse-secret-'));
    try {
      const file = path.join(dir, 'database-url');
      await writeFile(file, `${db.url}\n`);
      const { code, stdout } = await boot({ DATABASE_URL: '', DATABASE_URL_FILE: file }, ['migrate']);
      expect(code).toBe(0);
      expect(stdout).toContain('0 migration(s) applied');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('`migrate` applies every migration to an empty database, then nothing', async () => {
    const empty = await createTestDatabase({ empty: true });
    try {
      const first = await boot({ DATABASE_URL: empty.url }, ['migrate']);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^[1-9]\d* migration\(s\) applied, 0 already applied/m);
      expect(first.stdout).toContain('core/0001_audit_log.sql');
      const second = await boot({ DATABASE_URL: empty.url }, ['migrate']);
      expect(second.stdout).toMatch(/^0 migration\(s\) applied, [1-9]\d* already applied/m);
    } finally {
      await empty.drop();
    }
  });
});
