/** The auth plugin's boot rules (README, "Deployment settings"), each through the real process. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestIdp, type TestIdp } from '../../../test/support/oidc-idp.ts';
import { freePort, processEnv, spawnGateway } from '../../../test/support/process.ts';

let db: TestDatabase;
let idp: TestIdp;
beforeAll(async () => {
  db = await createTestDatabase();
  idp = await startTestIdp();
});
afterAll(async () => {
  await idp?.close();
  await db?.drop();
});

const oidcSettings = () => ({
  OIDC_ISSUER: idp.issuer,
  OIDC_CLIENT_ID: 'gatehouse',
  APP_BASE_URL: 'http://127.0.0.1:3000',
});

async function refused(env: Record<string, string>): Promise<string> {
  const child = spawnGateway({
    args: ['serve'],
    env: processEnv({ DATABASE_URL: db.url, GATEWAY_PLUGINS: 'auth', ...env }),
  });
  expect(await child.exited).toBe(1);
  expect(child.stderr()).toContain('Gatehouse cannot start');
  return child.stderr();
}

async function booted(env: Record<string, string>): Promise<Record<string, unknown>> {
  const child = spawnGateway({
    args: ['serve'],
    env: processEnv({ DATABASE_URL: db.url, GATEWAY_PLUGINS: 'auth', ...env }),
  });
  await child.waitForOutput(/"msg":"gateway listening"/);
  child.child.kill('SIGTERM');
  expect(await child.exited).toBe(0);
  const line = child
    .stdout()
    .split('\n')
    .find((l) => l.includes('"msg":"auth deployment"'));
  return JSON.parse(line ?? '{}') as Record<string, unknown>;
}

describe('auth deployment rules at boot', () => {
  it('AUTH_MODE missing outside development refuses boot', async () => {
    expect(await refused({ AUTH_MODE: '' })).toContain(
      'plugin auth: AUTH_MODE: required outside development (local, oidc or local+oidc)',
    );
  });

  it('AUTH_MODE=local with OIDC_ENABLED=true is a boot error', async () => {
    expect(await refused({ AUTH_MODE: 'local', OIDC_ENABLED: 'true' })).toContain(
      'plugin auth: OIDC_ENABLED: is true but AUTH_MODE=local',
    );
  });

  it('LDAP_ENABLED=true with AUTH_MODE=oidc is a boot error', async () => {
    expect(await refused({ AUTH_MODE: 'oidc', LDAP_ENABLED: 'true', ...oidcSettings() })).toContain(
      'plugin auth: LDAP_ENABLED: cannot be true with AUTH_MODE=oidc',
    );
  });

  it('an invalid AUTH_MODE is named with the allowed values', async () => {
    expect(await refused({ AUTH_MODE: 'sso' })).toContain(
      'plugin auth: AUTH_MODE: must be one of: local, oidc, local+oidc (got "sso")',
    );
  });

  it('development with AUTH_MODE unset behaves as local', async () => {
    expect(await booted({ APP_ENV: 'development', AUTH_MODE: '' })).toMatchObject({
      authMode: 'local',
      fallback: true,
      oidc: false,
    });
  });

  it('development with AUTH_MODE unset and OIDC_ENABLED=true adds single sign-on', async () => {
    expect(
      await booted({ APP_ENV: 'development', AUTH_MODE: '', OIDC_ENABLED: 'true', ...oidcSettings() }),
    ).toMatchObject({
      authMode: 'local+oidc',
      oidc: true,
    });
  });

  it('oidc mode turns password sign-in down to break-glass admins and registration off', async () => {
    expect(await booted({ AUTH_MODE: 'oidc', ...oidcSettings() })).toMatchObject({
      authMode: 'oidc',
      passwordLogin: 'break-glass-admins',
      registration: 'off',
      ldap: false,
    });
  });

  it('an issuer that does not answer discovery: boot retries for OIDC_BOOT_TIMEOUT_MS, then is refused naming the issuer', async () => {
    const issuer = `http://127.0.0.1:${await freePort()}`;
    const stderr = await refused({
      AUTH_MODE: 'oidc',
      ...oidcSettings(),
      OIDC_ISSUER: issuer,
      OIDC_BOOT_TIMEOUT_MS: '1500',
    });
    expect(stderr).toContain(
      `OIDC_ISSUER: the issuer ${issuer} could not be discovered at ${issuer}/.well-known/openid-configuration`,
    );
    expect(stderr).toMatch(/after [2-9]\d* attempt\(s\)/);
  });

  it('an issuer that comes up while boot retries: the gateway starts', async () => {
    const port = await freePort();
    const child = spawnGateway({
      args: ['serve'],
      env: processEnv({
        DATABASE_URL: db.url,
        GATEWAY_PLUGINS: 'auth',
        AUTH_MODE: 'oidc',
        ...oidcSettings(),
        OIDC_ISSUER: `http://127.0.0.1:${port}`,
        OIDC_BOOT_TIMEOUT_MS: '120000',
      }),
    });
    await child.waitForOutput(/oidc discovery failed; retrying/);
    const late = await startTestIdp({ port });
    try {
      await child.waitForOutput(/"msg":"gateway listening"/);
      child.child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    } finally {
      await late.close();
    }
  });
});
