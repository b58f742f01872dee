/**
 * One normalisation (NFKC) of a local password on every path that hashes or verifies one: registration,
 * sign-in, password change and `gatehouse admin create` (README, "Passwords"). Through HTTP and the
 * real CLI against the real gateway and Postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson, problemCode, sessionCookieOf } from '../../../test/support/http.ts';
import { processEnv, spawnGateway } from '../../../test/support/process.ts';

const APP = 'http://localhost:3000';
// A full-width C (U+FF23): NFKC makes it "C".
const WIDE = '\uff23orrect-horse-battery-9';
const NARROW = 'Correct-horse-battery-9';
let db: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: { GATEWAY_PLUGINS: 'auth', APP_BASE_URL: APP },
  });
  await db.pool.query('UPDATE auth_settings SET registration_enabled = true');
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

const login = (email: string, password: string) => postJson(gateway.url, '/auth/login', { email, password });

describe('a password with a compatibility character', () => {
  it('registered, signs in with the identical string and with its normalised form', async () => {
    expect(
      (await postJson(gateway.url, '/auth/register', { email: 'wide@example.com', password: WIDE })).status,
    ).toBe(201);
    expect((await login('wide@example.com', WIDE)).status).toBe(200);
    expect((await login('wide@example.com', NARROW)).status).toBe(200);
    expect((await login('wide@example.com', 'correct-horse-battery-9')).status).toBe(401);
  });

  it('is accepted as the current password of a change, and a new one is normalised the same way', async () => {
    const signedIn = await login('wide@example.com', WIDE);
    const cookie = `authjs.session-token=${sessionCookieOf(signedIn)}`;
    const change = (currentPassword: string, newPassword: string) =>
      postJson(
        gateway.url,
        '/api/v1/auth/password',
        { currentPassword, newPassword },
        { origin: APP, cookie },
      );
    const wrong = await change('\uff23orrect-horse-battery-8', 'ﬁrst-light-over-the-bay-7');
    expect(await problemCode(wrong)).toBe('auth.password.current_wrong');
    // The ligature ﬁ (U+FB01) is "fi" once normalised.
    expect((await change(WIDE, 'ﬁrst-light-over-the-bay-7')).status).toBe(204);
    expect((await login('wide@example.com', 'ﬁrst-light-over-the-bay-7')).status).toBe(200);
    expect((await login('wide@example.com', 'first-light-over-the-bay-7')).status).toBe(200);
  });

  it('set by `gatehouse admin create`, signs in with the identical string', async () => {
    const child = spawnGateway({
      args: ['admin', 'create', '--email', 'wide-admin@example.com'],
      env: processEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' }),
    });
    child.child.stdin.end(`${WIDE}\n`);
    expect(await child.exited).toBe(0);
    expect((await login('wide-admin@example.com', WIDE)).status).toBe(200);
    expect((await login('wide-admin@example.com', NARROW)).status).toBe(200);
  });
});
