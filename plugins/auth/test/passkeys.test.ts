/**
 * Passkeys in Chromium with the DevTools virtual authenticator (README, "Passkeys"), against the booted gateway on
 * real PostgreSQL: registration (with a session, or as the enrollment a password sign-in owes), usernameless sign-in
 * with user verification, the passkey as the second step of a password sign-in, list, rename, removal with a fresh
 * factor and the step-up that gives one. The gateway's origin is `http://localhost:<port>`, a valid RP id.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import { findChromium, LAUNCH_WAIT_MS, launchChromium } from '../../../test/support/browser.ts';
import { createManualClock } from '../../../test/support/core.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv, sign, SIGNATURE_HEADER } from '../../../test/support/gate.ts';
import { SESSION_HEADER } from '../../../gateway/src/plugin-api.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { freePort } from '../../../test/support/process.ts';
import {
  beginTotp,
  confirmTotp,
  passwordSignIn,
  totpCode,
  withCookie,
  type Caller,
} from '../../../test/support/second-factor.ts';
import {
  beginPasskeySignIn,
  beginRegistration,
  finishRegistration,
  openPasskeyBrowser,
  passkeySignIn,
  registerPasskey,
  type PasskeyBrowser,
} from '../../../test/support/webauthn.ts';

const executablePath = await findChromium();
const PASSWORD = 'violet umbrella 42';
const clock = createManualClock(Date.now());
let db: TestDatabase;
let gateway: TestGateway;
let caller: Caller;
let browser: Browser | undefined;
const pages: PasskeyBrowser[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const port = await freePort();
  const app = `http://localhost:${port}`;
  gateway = await startTestGateway({
    databaseUrl: db.url,
    clock,
    env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth', PORT: String(port), APP_BASE_URL: app },
  });
  caller = { url: gateway.url, origin: app };
  if (executablePath) browser = await launchChromium(executablePath);
}, LAUNCH_WAIT_MS * 2);
afterAll(async () => {
  for (const page of pages) await page.close();
  await browser?.close();
  await gateway?.close();
  await db?.drop();
});

/** A page of its own, with an authenticator of its own. */
async function authenticator(): Promise<PasskeyBrowser> {
  const page = await openPasskeyBrowser(browser as Browser, caller.origin);
  pages.push(page);
  return page;
}

/** A new account without factors, signed in with its password. */
async function signedIn(email: string): Promise<{ userId: string; cookie: string }> {
  const userId = await seedLocalAccount(db.pool, { email, password: PASSWORD });
  const { body, cookie } = await passwordSignIn(caller, email, PASSWORD);
  expect(body.status).toBe('signed_in');
  return { userId, cookie };
}

/** A new account with one passkey, registered with its session. */
async function withPasskey(email: string) {
  const account = await signedIn(email);
  const page = await authenticator();
  const registered = await registerPasskey(caller, page, { cookie: account.cookie });
  expect(registered.res.status).toBe(201);
  return { ...account, page, passkeyId: (registered.body.passkey as { id: string }).id };
}

const get = (path: string, cookie: string) =>
  fetch(`${caller.url}${path}`, { headers: withCookie(caller, cookie) });

async function audited(userId: string, kind: string): Promise<Array<Record<string, unknown>>> {
  await gateway.audit.flush();
  const { rows } = await db.pool.query<{ payload: Record<string, unknown> }>(
    'SELECT payload FROM audit_log WHERE actor = $1 AND kind = $2 ORDER BY id',
    [userId, kind],
  );
  return rows.map((row) => row.payload);
}

describe.skipIf(!executablePath)('registration', () => {
  it('asks for a discoverable credential with user verification, stores it, and gives the first recovery codes', async () => {
    const { userId, cookie } = await signedIn('ada@example.com');
    const page = await authenticator();
    const begun = await beginRegistration(caller, { cookie });
    expect(begun.options).toMatchObject({
      rp: { id: 'localhost', name: 'Gatehouse' },
      user: {
        id: Buffer.from(userId.replaceAll('-', ''), 'hex').toString('base64url'),
        name: 'ada@example.com',
      },
      attestation: 'none',
      authenticatorSelection: {
        residentKey: 'required',
        requireResidentKey: true,
        userVerification: 'required',
      },
      excludeCredentials: [],
    });
    const response = await page.create(begun.options);
    const finished = await finishRegistration(
      caller,
      { cookie },
      {
        ceremonyToken: begun.ceremonyToken,
        response,
        name: '  Work laptop  ',
      },
    );
    expect(finished.res.status).toBe(201);
    expect(finished.body.passkey).toEqual({
      id: expect.any(String) as unknown,
      name: 'Work laptop',
      createdAt: expect.any(String) as unknown,
      lastUsedAt: null,
      backedUp: false,
    });
    expect(finished.body.recoveryCodes).toHaveLength(10);
    const factors = (await (await get('/api/v1/auth/factors', cookie)).json()) as Record<string, unknown>;
    expect(factors).toMatchObject({ passkeys: 1, recoveryCodesLeft: 10, passkeysAvailable: true });
    // The same authenticator is not registered twice.
    const again = await beginRegistration(caller, { cookie });
    expect(again.options.excludeCredentials).toEqual([
      expect.objectContaining({ id: response.id, type: 'public-key' }),
    ]);
    expect(await audited(userId, 'auth.passkey.registered')).toEqual([
      { passkeyId: (finished.body.passkey as { id: string }).id },
    ]);
  });

  it('keeps the name the begin gave, else names the passkey after its day', async () => {
    const { cookie } = await signedIn('names@example.com');
    const page = await authenticator();
    const begun = await beginRegistration(caller, { cookie }, { name: 'Phone' });
    const named = await finishRegistration(
      caller,
      { cookie },
      {
        ceremonyToken: begun.ceremonyToken,
        response: await page.create(begun.options),
      },
    );
    expect(named.body.passkey).toMatchObject({ name: 'Phone' });
    const other = await authenticator();
    const unnamed = await registerPasskey(caller, other, { cookie });
    expect(unnamed.body.passkey).toMatchObject({ name: `Passkey ${clock.now().toISOString().slice(0, 10)}` });
  });

  it('is the enrollment a password sign-in owes: its finish signs in, with the passkey and recovery codes', async () => {
    const userId = await seedLocalAccount(db.pool, { email: 'owes@example.com', password: PASSWORD });
    await db.pool.query('UPDATE auth_users SET factor_enrollment_required = true WHERE id = $1', [userId]);
    const { body } = await passwordSignIn(caller, 'owes@example.com', PASSWORD);
    expect(body).toMatchObject({
      status: 'second_factor_enrollment_required',
      methods: { totp: true, passkey: true, recoveryCode: false },
    });
    const pendingToken = body.pendingToken as string;
    const finished = await registerPasskey(caller, await authenticator(), { pendingToken });
    expect(finished.res.status).toBe(200);
    expect(finished.body).toMatchObject({
      status: 'signed_in',
      user: { id: userId },
      passkey: { name: expect.any(String) as unknown },
      recoveryCodes: expect.any(Array) as unknown,
    });
    const session = (await (await get('/api/v1/auth/session', finished.cookie)).json()) as {
      identity: { sub: string };
    };
    expect(session.identity.sub).toBe(userId);
    const { rows } = await db.pool.query(
      'SELECT factor_enrollment_required AS owed FROM auth_users WHERE id = $1',
      [userId],
    );
    expect(rows[0]).toEqual({ owed: false });
    // The pending sign-in is used up.
    const reused = await fetch(`${caller.url}/api/v1/auth/passkeys/register/begin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pendingToken }),
    });
    expect(reused.status).toBe(401);
    expect(await audited(userId, 'auth.login.success')).toEqual([{ method: 'password', factor: 'passkey' }]);
  });

  it('is refused to a sign-in that must verify the factor the account has', async () => {
    const { cookie } = await signedIn('has-totp@example.com');
    const { secret } = await beginTotp(caller, { cookie });
    expect((await confirmTotp(caller, { cookie }, await totpCode(secret, clock.now()))).res.status).toBe(200);
    const { body } = await passwordSignIn(caller, 'has-totp@example.com', PASSWORD);
    expect(body.status).toBe('second_factor_required');
    const res = await fetch(`${caller.url}/api/v1/auth/passkeys/register/begin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pendingToken: body.pendingToken }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('auth.second_factor.enroll_not_allowed');
  });

  it('is refused to a directory-managed account', async () => {
    const { userId, cookie } = await signedIn('directory@example.com');
    await db.pool.query('UPDATE auth_users SET directory_managed = true WHERE id = $1', [userId]);
    const res = await fetch(`${caller.url}/api/v1/auth/passkeys/register/begin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...withCookie(caller, cookie) },
      body: '{}',
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { code: string }).code).toBe('auth.passkey.directory_managed');
  });
});

describe.skipIf(!executablePath)('sign-in', () => {
  it('usernameless, with user verification: a session the API accepts, a fresh factor, the counter stored', async () => {
    const { userId, page, passkeyId } = await withPasskey('grace@example.com');
    const begun = await beginPasskeySignIn(caller, {});
    expect(begun.options).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
    expect(begun.options.allowCredentials ?? []).toEqual([]);
    const signedIn = await passkeySignIn(caller, page);
    expect(signedIn.res.status).toBe(200);
    expect(signedIn.body).toMatchObject({
      status: 'signed_in',
      user: { id: userId, email: 'grace@example.com' },
    });
    const session = (await (await get('/api/v1/auth/session', signedIn.cookie)).json()) as {
      identity: { sub: string };
    };
    expect(session.identity.sub).toBe(userId);
    const factors = (await (await get('/api/v1/auth/factors', signedIn.cookie)).json()) as {
      factorVerifiedAt: string | null;
    };
    expect(factors.factorVerifiedAt).not.toBeNull();
    const [credential] = await page.credentials();
    const { rows } = await db.pool.query<{ count: string; used: Date | null }>(
      'SELECT sign_count AS count, last_used_at AS used FROM auth_passkeys WHERE id = $1',
      [passkeyId],
    );
    expect(Number(rows[0]?.count)).toBe(credential?.signCount);
    expect(rows[0]?.used).not.toBeNull();
    expect(await audited(userId, 'auth.login.success')).toContainEqual({
      method: 'passkey',
      factor: 'passkey',
    });
  });

  it('is the second step of a password sign-in, offering the account’s passkeys', async () => {
    const { userId, page } = await withPasskey('second-step@example.com');
    const { body } = await passwordSignIn(caller, 'second-step@example.com', PASSWORD);
    expect(body).toMatchObject({ status: 'second_factor_required', methods: { passkey: true } });
    const pendingToken = body.pendingToken as string;
    const [credential] = await page.credentials();
    const begun = await beginPasskeySignIn(caller, { pendingToken });
    expect(begun.options.allowCredentials).toEqual([
      expect.objectContaining({
        id: Buffer.from(credential?.credentialId ?? '', 'base64').toString('base64url'),
      }),
    ]);
    const signedIn = await passkeySignIn(caller, page, { pendingToken });
    expect(signedIn.body).toMatchObject({ status: 'signed_in', user: { id: userId } });
    // The pending sign-in served its one session.
    const again = await fetch(`${caller.url}/api/v1/auth/passkeys/sign-in/begin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pendingToken }),
    });
    expect(again.status).toBe(401);
    expect(await audited(userId, 'auth.login.success')).toContainEqual({
      method: 'password',
      factor: 'passkey',
    });
  });
});

describe.skipIf(!executablePath)('managing passkeys', () => {
  it('lists and renames them; names are trimmed, 1 to 100 characters, without control characters', async () => {
    const { userId, cookie, passkeyId } = await withPasskey('manage@example.com');
    const list = (await (await get('/api/v1/auth/passkeys', cookie)).json()) as { passkeys: unknown[] };
    expect(list.passkeys).toEqual([expect.objectContaining({ id: passkeyId })]);
    const rename = (name: unknown) =>
      fetch(`${caller.url}/api/v1/auth/passkeys/${passkeyId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...withCookie(caller, cookie) },
        body: JSON.stringify({ name }),
      });
    const renamed = await rename('  YubiKey 5 ');
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ id: passkeyId, name: 'YubiKey 5' });
    for (const bad of ['   ', 'x'.repeat(101), 'tab\there', 42]) expect((await rename(bad)).status).toBe(400);
    expect((await rename('😀'.repeat(100))).status).toBe(200);
    expect(await audited(userId, 'auth.passkey.renamed')).toHaveLength(2);
  });

  it('removal needs a fresh factor; a step-up with the passkey gives one', async () => {
    const { userId, cookie, page, passkeyId } = await withPasskey('remove@example.com');
    // The registration proved a factor; eleven minutes later that is no longer recent.
    clock.advance(11 * 60_000);
    const remove = () =>
      fetch(`${caller.url}/api/v1/auth/passkeys/${passkeyId}`, {
        method: 'DELETE',
        headers: withCookie(caller, cookie),
      });
    const stale = await remove();
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as { code: string }).code).toBe('auth.second_factor.not_fresh');
    const begun = await beginPasskeySignIn(caller, { cookie }, { stepUp: true });
    expect(begun.options.allowCredentials).toHaveLength(1);
    const stepUp = await passkeySignIn(caller, page, { cookie }, { stepUp: true });
    expect(stepUp.res.status).toBe(200);
    expect(stepUp.body).toEqual({
      factorVerifiedAt: expect.any(String) as unknown,
      freshUntil: expect.any(String) as unknown,
    });
    expect((await remove()).status).toBe(204);
    expect((await remove()).status).toBe(404);
    expect(await audited(userId, 'auth.step_up')).toEqual([{ factor: 'passkey' }]);
    expect(await audited(userId, 'auth.passkey.removed')).toEqual([{ passkeyId, by: 'self' }]);
  });

  it('a passkey sign-in is itself a fresh factor', async () => {
    const { page, passkeyId } = await withPasskey('fresh@example.com');
    clock.advance(11 * 60_000);
    const { cookie } = await passkeySignIn(caller, page);
    const res = await fetch(`${caller.url}/api/v1/auth/passkeys/${passkeyId}`, {
      method: 'DELETE',
      headers: withCookie(caller, cookie),
    });
    expect(res.status).toBe(204);
  });

  it('another account’s passkey is not found', async () => {
    const { passkeyId } = await withPasskey('owner@example.com');
    // An account with a passkey of its own and a fresh factor: only ownership stands in its way.
    const { cookie } = await withPasskey('intruder@example.com');
    const renamed = await fetch(`${caller.url}/api/v1/auth/passkeys/${passkeyId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...withCookie(caller, cookie) },
      body: JSON.stringify({ name: 'mine now' }),
    });
    expect(renamed.status).toBe(404);
    const removed = await fetch(`${caller.url}/api/v1/auth/passkeys/${passkeyId}`, {
      method: 'DELETE',
      headers: withCookie(caller, cookie),
    });
    expect(removed.status).toBe(404);
    const { rows } = await db.pool.query('SELECT name FROM auth_passkeys WHERE id = $1', [passkeyId]);
    expect(rows).toHaveLength(1);
  });
});

describe('passkeys off (no relying party resolves)', () => {
  it('answers the ceremonies 404 auth.passkey.unavailable, and still lists passkeys', async () => {
    const off = await startTestGateway({
      databaseUrl: db.url,
      env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth' },
    });
    try {
      const credential = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', clientExtensionResults: {} };
      const bodies: Record<string, unknown> = {
        'register/begin': {},
        'register/finish': {
          ceremonyToken: 'x'.repeat(43),
          response: { ...credential, response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' } },
        },
        'sign-in/begin': {},
        'sign-in/finish': {
          ceremonyToken: 'x'.repeat(43),
          response: {
            ...credential,
            response: { clientDataJSON: 'AA', authenticatorData: 'AA', signature: 'AA' },
          },
        },
      };
      for (const [path, body] of Object.entries(bodies)) {
        const res = await fetch(`${off.url}/api/v1/auth/passkeys/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const { code } = (await res.json()) as { code: string };
        expect([path, res.status, code]).toEqual([path, 404, 'auth.passkey.unavailable']);
      }
      await seedLocalAccount(db.pool, { email: 'off@example.com', password: PASSWORD });
      const { cookie, body } = await passwordSignIn(
        { url: off.url, origin: '' },
        'off@example.com',
        PASSWORD,
      );
      expect(body).toMatchObject({ status: 'signed_in' });
      const listed = await fetch(`${off.url}/api/v1/auth/passkeys`, {
        headers: { cookie: `authjs.session-token=${cookie}` },
      });
      expect(await listed.json()).toEqual({ passkeys: [] });
      const factors = await fetch(`${off.url}/api/v1/auth/factors`, {
        headers: { cookie: `authjs.session-token=${cookie}` },
      });
      expect(await factors.json()).toMatchObject({ passkeysAvailable: false });
    } finally {
      await off.close();
    }
  });
});

describe.skipIf(!executablePath)('recovery (README, "Recovery")', () => {
  it('authenticator app lost, passkey held: after an admin resets the TOTP, the passkey still signs in', async () => {
    const { userId, cookie, page } = await withPasskey('phone-lost@example.com');
    // The registration proved a factor on this session, so it may add the authenticator app.
    const { secret } = await beginTotp(caller, { cookie });
    expect((await confirmTotp(caller, { cookie }, await totpCode(secret, clock.now()))).res.status).toBe(200);
    await seedLocalAccount(db.pool, { email: 'helpdesk@example.com', password: PASSWORD, roles: ['*'] });
    const admin = await passwordSignIn(caller, 'helpdesk@example.com', PASSWORD);
    const path = `/admin/users/${userId}/totp`;
    const reset = await fetch(`${caller.url}${path}`, {
      method: 'DELETE',
      headers: {
        [SIGNATURE_HEADER]: sign({ method: 'DELETE', url: path, at: Math.floor(clock.nowMs() / 1000) }),
        [SESSION_HEADER]: admin.cookie,
      },
    });
    expect(reset.status).toBe(204);
    const signedIn = await passkeySignIn(caller, page);
    expect(signedIn.body).toMatchObject({ status: 'signed_in', user: { id: userId } });
  });
});
