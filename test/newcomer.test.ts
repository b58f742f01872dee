/**
 * The README's quick start as a new user runs it, through real processes and nothing configured beyond
 * what keeps this test apart from others (ports and DATA_DIR): `npm start`; in another process the first
 * administrator from `npm run gatehouse -- admin create`; that admin signs in and changes a setting from a
 * browser on the gateway's address (cookie and Origin); SIGTERM to `npm start` stops everything.
 */
import { describe, expect, it } from 'vitest';
import { expectAllStopped, npmStartSuite } from './support/npm-start.ts';
import { endsWithTest, spawnNpm } from './support/process.ts';

const EMAIL = 'admin@example.com';
const PASSWORD = 'correct horse battery staple 42';

describe('quick start: npm start, the first admin, a settings change from the browser', () => {
  const suite = npmStartSuite('newcomer');

  it('works without setting any variable, and SIGTERM to npm start stops it all', async () => {
    const started = await suite.start();
    const base = `http://127.0.0.1:${suite.where.port}`;

    const create = endsWithTest(
      spawnNpm({
        args: ['run', 'gatehouse', '--', 'admin', 'create', '--email', EMAIL],
        env: suite.where.env,
      }),
    );
    create.child.stdin.end(`${PASSWORD}\n`);
    const created = await create.exited;
    expect(create.stderr()).not.toMatch(/failed to start|cannot start/);
    expect(created).toBe(0);
    expect(create.stdout()).toContain(`created administrator ${EMAIL}`);

    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const setCookie = login.headers.get('set-cookie') ?? '';
    // A browser on plain http://127.0.0.1 keeps the cookie only if it is not marked Secure.
    expect(setCookie).not.toMatch(/;\s*secure/i);
    const cookie = setCookie.split(';')[0] ?? '';

    const change = await fetch(`${base}/api/v1/admin/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', cookie, origin: base },
      body: JSON.stringify({ registrationEnabled: true }),
    });
    expect(await change.json()).toMatchObject({ registrationEnabled: true });
    expect(change.status).toBe(200);

    // The same change from another origin is still refused.
    const forged = await fetch(`${base}/api/v1/admin/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', cookie, origin: 'http://evil.example' },
      body: JSON.stringify({ registrationEnabled: false }),
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ code: 'auth.origin.mismatch' });

    process.kill(started.npm.child.pid as number, 'SIGTERM');
    await expectAllStopped(started, suite.where);
  }, 180_000);
});
