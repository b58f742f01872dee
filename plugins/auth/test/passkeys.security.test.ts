/**
 * Passkeys under attack (README, "Passkeys"), in Chromium with the DevTools virtual authenticator: user verification
 * is enforced by the server, not only asked for; a replayed assertion and a cloned authenticator's counter are
 * refused and audited; a ceremony token serves one finish, for 5 minutes; refusals count on the limits. Single
 * sign-on mode: passkeys are for break-glass admins only, and satisfy their second-factor gate.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import { findChromium, LAUNCH_WAIT_MS, launchChromium } from '../../../test/support/browser.ts';
import { createManualClock } from '../../../test/support/core.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { DEFAULT_CLIENT, startTestIdp, type TestIdp } from '../../../test/support/oidc-idp.ts';
import { freePort } from '../../../test/support/process.ts';
import { passwordSignIn, withCookie, type Caller } from '../../../test/support/second-factor.ts';
import {
  beginPasskeySignIn,
  beginRegistration,
  finishPasskeySignIn,
  finishRegistration,
  openPasskeyBrowser,
  passkeySignIn,
  registerPasskey,
  type PasskeyBrowser,
} from '../../../test/support/webauthn.ts';
import { metricSamples, samplesAdded } from '../../../test/support/metric-samples.ts';

const executablePath = await findChromium();
const PASSWORD = 'violet umbrella 42';
const clock = createManualClock(Date.now());
let db: TestDatabase;
let gateway: TestGateway;
let caller: Caller;
let browser: Browser | undefined;
const pages: PasskeyBrowser[] = [];

/** The application's origin on a port of its own: `localhost`, so passkeys are on. */
async function localOrigin(): Promise<{ port: string; origin: string }> {
  const port = String(await freePort());
  return { port, origin: `http://localhost:${port}` };
}

beforeAll(async () => {
  db = await createTestDatabase();
  const { port, origin } = await localOrigin();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    clock,
    env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth', PORT: port, APP_BASE_URL: origin },
  });
  caller = { url: gateway.url, origin };
  if (executablePath) browser = await launchChromium(executablePath);
}, LAUNCH_WAIT_MS * 2);
afterAll(async () => {
  for (const page of pages) await page.close();
  await browser?.close();
  await gateway?.close();
  await db?.drop();
});

async function authenticator(origin = caller.origin, userVerification = true): Promise<PasskeyBrowser> {
  const page = await openPasskeyBrowser(browser as Browser, origin, { userVerification });
  pages.push(page);
  return page;
}

/** A new account with one passkey (registered with the session of its password sign-in). */
async function withPasskey(email: string, roles: string[] = []) {
  const userId = await seedLocalAccount(db.pool, { email, password: PASSWORD, roles });
  const { cookie } = await passwordSignIn(caller, email, PASSWORD);
  const page = await authenticator();
  const registered = await registerPasskey(caller, page, { cookie });
  expect(registered.res.status).toBe(201);
  return { userId, cookie, page, passkeyId: (registered.body.passkey as { id: string }).id };
}

async function audited(
  userId: string | null,
  kind: string,
  writer: TestGateway = gateway,
): Promise<Array<Record<string, unknown>>> {
  await writer.audit.flush();
  const { rows } = await db.pool.query<{ payload: Record<string, unknown> }>(
    'SELECT payload FROM audit_log WHERE actor IS NOT DISTINCT FROM $1 AND kind = $2 ORDER BY id',
    [userId, kind],
  );
  return rows.map((row) => row.payload);
}

async function sessionsOf(userId: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM auth_sessions WHERE user_id = $1',
    [userId],
  );
  return rows[0]?.n ?? 0;
}

const codeOf = async (res: Response) => ((await res.json()) as { code: string }).code;

describe.skipIf(!executablePath)('user verification', () => {
  it('is required at registration: a response without the UV flag is refused, whatever the client asked for', async () => {
    const userId = await seedLocalAccount(db.pool, { email: 'no-uv@example.com', password: PASSWORD });
    const { cookie } = await passwordSignIn(caller, 'no-uv@example.com', PASSWORD);
    // An authenticator that cannot verify its user, and a client that asks it not to.
    const page = await authenticator(caller.origin, false);
    const refused = await registerPasskey(caller, page, { cookie }, { tweak: 'no-user-verification' });
    expect(refused.res.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'auth.passkey.invalid' });
    const { rows } = await db.pool.query('SELECT 1 FROM auth_passkeys WHERE user_id = $1', [userId]);
    expect(rows).toHaveLength(0);
    expect(await audited(userId, 'auth.passkey.failed')).toEqual([
      { during: 'registration', reason: 'user_not_verified' },
    ]);
  });

  it('is required at sign-in: an assertion without the UV flag is refused and makes no session', async () => {
    const { userId, page, passkeyId } = await withPasskey('uv-later@example.com');
    const before = await sessionsOf(userId);
    // The authenticator's user verification now fails, and the client asks it to skip it.
    await page.setUserVerified(false);
    const refused = await passkeySignIn(caller, page, {}, { tweak: 'no-user-verification' });
    expect(refused.res.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'auth.passkey.invalid' });
    expect(refused.cookie).toBe('');
    expect(await sessionsOf(userId)).toBe(before);
    expect(await audited(userId, 'auth.passkey.failed')).toEqual([
      { passkeyId, reason: 'user_not_verified' },
    ]);
  });
});

describe.skipIf(!executablePath)('replays and clones', () => {
  it('a replayed assertion is refused and audited: its ceremony is used, and a new ceremony has another challenge', async () => {
    const { userId, page, passkeyId } = await withPasskey('replay@example.com');
    const first = await passkeySignIn(caller, page);
    expect(first.res.status).toBe(200);
    const sessions = await sessionsOf(userId);
    const begun = await beginPasskeySignIn(caller, {});
    const again = await finishPasskeySignIn(
      caller,
      {},
      { ceremonyToken: begun.ceremonyToken, response: first.response },
    );
    expect(again.res.status).toBe(401);
    expect(again.body).toMatchObject({ code: 'auth.passkey.invalid' });
    expect(await sessionsOf(userId)).toBe(sessions);
    expect(await audited(userId, 'auth.passkey.failed')).toEqual([
      { passkeyId, reason: 'challenge_mismatch' },
    ]);
  });

  it('the same finish twice: the second finds its ceremony used', async () => {
    const { page } = await withPasskey('twice@example.com');
    const begun = await beginPasskeySignIn(caller, {});
    const response = await page.get(begun.options);
    const body = { ceremonyToken: begun.ceremonyToken, response };
    expect((await finishPasskeySignIn(caller, {}, body)).res.status).toBe(200);
    const second = await finishPasskeySignIn(caller, {}, body);
    expect(second.res.status).toBe(401);
    expect(second.body).toMatchObject({ code: 'auth.passkey.ceremony_expired' });
  });

  it('a sign count lower than the stored one is refused and audited auth.passkey.clone_suspected', async () => {
    const { userId, page, passkeyId } = await withPasskey('clone@example.com');
    expect((await passkeySignIn(caller, page)).res.status).toBe(200);
    const [credential] = await page.credentials();
    const stored = credential?.signCount ?? 0;
    expect(stored).toBeGreaterThan(1);
    const before = await sessionsOf(userId);
    const signIns = () => metricSamples(gateway.metricsUrl, 'gatehouse_auth_sign_ins_total');
    const countedBefore = await signIns();
    // A copy of the key whose counter is behind: its next assertion presents stored - 1.
    await page.setSignCount(credential as NonNullable<typeof credential>, stored - 2);
    const cloned = await passkeySignIn(caller, page);
    expect(cloned.res.status).toBe(401);
    expect(samplesAdded(countedBefore, await signIns())).toEqual({
      'method="passkey",outcome="second_factor_failed"': 1,
    });
    expect(cloned.body).toMatchObject({ code: 'auth.passkey.invalid' });
    expect(await sessionsOf(userId)).toBe(before);
    expect(await audited(userId, 'auth.passkey.clone_suspected')).toEqual([
      { passkeyId, stored, presented: stored - 1 },
    ]);
    const { rows } = await db.pool.query<{ count: string }>(
      'SELECT sign_count AS count FROM auth_passkeys WHERE id = $1',
      [passkeyId],
    );
    expect(Number(rows[0]?.count)).toBe(stored);
  });
});

describe.skipIf(!executablePath)('ceremony tokens', () => {
  it('serve one finish: 10 parallel finishes with one token make exactly one session', async () => {
    const { userId, page } = await withPasskey('parallel@example.com');
    const before = await sessionsOf(userId);
    const begun = await beginPasskeySignIn(caller, {});
    const response = await page.get(begun.options);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        finishPasskeySignIn(caller, {}, { ceremonyToken: begun.ceremonyToken, response }),
      ),
    );
    expect(results.map((result) => result.res.status).sort()).toEqual([200, ...Array<number>(9).fill(401)]);
    expect(await sessionsOf(userId)).toBe(before + 1);
  });

  it('expire after 5 minutes', async () => {
    const { page } = await withPasskey('slow@example.com');
    const begun = await beginPasskeySignIn(caller, {});
    const response = await page.get(begun.options);
    clock.advance(5 * 60_000 + 1000);
    const late = await finishPasskeySignIn(caller, {}, { ceremonyToken: begun.ceremonyToken, response });
    expect(late.res.status).toBe(401);
    expect(late.body).toMatchObject({ code: 'auth.passkey.ceremony_expired' });
  });

  it('of a registration do not finish a sign-in', async () => {
    const { cookie, page } = await withPasskey('purpose@example.com');
    const registration = await beginRegistration(caller, { cookie });
    const signIn = await beginPasskeySignIn(caller, {});
    const response = await page.get(signIn.options);
    const crossed = await finishPasskeySignIn(
      caller,
      {},
      { ceremonyToken: registration.ceremonyToken, response },
    );
    expect(crossed.body).toMatchObject({ code: 'auth.passkey.ceremony_expired' });
  });

  it('of a step-up need the session that began it', async () => {
    const { page, cookie } = await withPasskey('step-up@example.com');
    const { cookie: otherCookie } = await withPasskey('someone-else@example.com');
    const begun = await beginPasskeySignIn(caller, { cookie }, { stepUp: true });
    const response = await page.get(begun.options);
    const res = await fetch(`${caller.url}/api/v1/auth/passkeys/sign-in/finish`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...withCookie(caller, otherCookie) },
      body: JSON.stringify({ ceremonyToken: begun.ceremonyToken, response }),
    });
    expect(res.status).toBe(401);
    expect(await codeOf(res)).toBe('auth.session.missing');
  });
});

describe.skipIf(!executablePath)('secrets', () => {
  it('no ceremony token, challenge, response or key reaches a log line or an audit row', async () => {
    await seedLocalAccount(db.pool, { email: 'secrets@example.com', password: PASSWORD });
    const { cookie } = await passwordSignIn(caller, 'secrets@example.com', PASSWORD);
    const page = await authenticator();
    const registration = await beginRegistration(caller, { cookie });
    const created = await page.create(registration.options);
    const registered = await finishRegistration(
      caller,
      { cookie },
      {
        ceremonyToken: registration.ceremonyToken,
        response: created,
      },
    );
    expect(registered.res.status).toBe(201);
    const signIn = await beginPasskeySignIn(caller, {});
    const asserted = await page.get(signIn.options);
    const body = { ceremonyToken: signIn.ceremonyToken, response: asserted };
    expect((await finishPasskeySignIn(caller, {}, body)).res.status).toBe(200);
    // A replay too: refusals are audited, and must not carry what was refused.
    expect((await finishPasskeySignIn(caller, {}, body)).res.status).toBe(401);
    const { rows } = await db.pool.query<{ key: Buffer }>(
      "SELECT p.public_key AS key FROM auth_passkeys p JOIN auth_users u ON u.id = p.user_id WHERE u.email = 'secrets@example.com'",
    );
    const secrets = [
      registration.ceremonyToken,
      signIn.ceremonyToken,
      registration.options.challenge,
      signIn.options.challenge,
      ...Object.values(created.response as Record<string, unknown>),
      ...Object.values(asserted.response as Record<string, unknown>),
      rows[0]?.key.toString('base64url'),
      rows[0]?.key.toString('base64'),
    ].filter((value): value is string => typeof value === 'string' && value.length >= 16);
    expect(secrets.length).toBeGreaterThanOrEqual(8);
    await gateway.audit.flush();
    const audit = (await db.pool.query<{ row: string }>('SELECT payload::text AS row FROM audit_log')).rows
      .map((row) => row.row)
      .join('\n');
    const logs = JSON.stringify(gateway.logs());
    for (const secret of secrets) {
      expect(audit).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});

describe('hostile responses', () => {
  const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');
  const clientData = (type: string, challenge: unknown) =>
    b64(JSON.stringify({ type, challenge, origin: caller.origin, crossOrigin: false }));

  it('malformed attestations and assertions for a live ceremony: 401 every time, never a 5xx, nothing stored', async () => {
    const userId = await seedLocalAccount(db.pool, { email: 'hostile@example.com', password: PASSWORD });
    const { cookie } = await passwordSignIn(caller, 'hostile@example.com', PASSWORD);
    const sessions = await sessionsOf(userId);
    const credential = { id: 'hostile-credential', rawId: 'hostile-credential', type: 'public-key' };
    const attestations = (challenge: string) => [
      { clientDataJSON: '', attestationObject: '' },
      { clientDataJSON: b64('not json'), attestationObject: b64('not cbor') },
      { clientDataJSON: clientData('webauthn.create', challenge), attestationObject: b64('not cbor') },
      {
        clientDataJSON: clientData('webauthn.create', challenge),
        attestationObject: b64(Buffer.from([0xa3, 0x63])),
      },
      { clientDataJSON: clientData('webauthn.create', { challenge }), attestationObject: 'A'.repeat(60_000) },
      { clientDataJSON: b64('[]'), attestationObject: b64(Buffer.alloc(300, 0xff)) },
    ];
    const assertions = (challenge: string) => [
      { clientDataJSON: '', authenticatorData: '', signature: '' },
      { clientDataJSON: b64('{"type":'), authenticatorData: 'AA', signature: 'AA' },
      {
        clientDataJSON: clientData('webauthn.get', challenge),
        authenticatorData: b64(Buffer.alloc(10)),
        signature: 'AA',
      },
      {
        clientDataJSON: clientData('webauthn.get', challenge),
        authenticatorData: b64(Buffer.alloc(37, 0xff)),
        signature: 'A'.repeat(8000),
        userHandle: 'AA',
      },
      {
        clientDataJSON: clientData('webauthn.get', challenge),
        authenticatorData: b64(Buffer.alloc(37, 5)),
        signature: 'AA',
      },
    ];
    for (let i = 0; i < 6; i++) {
      const begun = await beginRegistration(caller, { cookie });
      const response = { ...credential, response: attestations(begun.options.challenge as string)[i] };
      const finished = await finishRegistration(
        caller,
        { cookie },
        { ceremonyToken: begun.ceremonyToken, response },
      );
      expect([i, finished.res.status, finished.body.code]).toEqual([i, 401, 'auth.passkey.invalid']);
    }
    // A stored passkey with a key that is not a key: assertions naming it reach the verification itself.
    await db.pool.query(
      `INSERT INTO auth_passkeys (user_id, credential_id, public_key, sign_count, name, device_type, backed_up, created_at)
       VALUES ($1, 'hostile-credential', '\\x00ff', 0, 'hostile', 'singleDevice', false, now())`,
      [userId],
    );
    for (let i = 0; i < 5; i++) {
      const begun = await beginPasskeySignIn(caller, {});
      const response = { ...credential, response: assertions(begun.options.challenge as string)[i] };
      const finished = await finishPasskeySignIn(
        caller,
        {},
        { ceremonyToken: begun.ceremonyToken, response },
      );
      expect([i, finished.res.status, finished.body.code]).toEqual([i, 401, 'auth.passkey.invalid']);
    }
    const { rows } = await db.pool.query('SELECT name FROM auth_passkeys WHERE user_id = $1', [userId]);
    expect(rows).toEqual([{ name: 'hostile' }]);
    expect(await sessionsOf(userId)).toBe(sessions);
  });
});

describe('limits', () => {
  it('refused finishes count against the address: 429 with Retry-After past the allowance', async () => {
    // A database of its own: the limits' counters are shared by every gateway on one database.
    const own = await createTestDatabase();
    const limited = await startTestGateway({
      databaseUrl: own.url,
      env: {
        ...gateEnv('enforce'),
        GATEWAY_PLUGINS: 'auth',
        APP_BASE_URL: 'http://localhost:3000',
        LOGIN_FREE_FAILURES_PER_IP: '3',
      },
    });
    try {
      const finish = () =>
        fetch(`${limited.url}/api/v1/auth/passkeys/sign-in/finish`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            ceremonyToken: 'A'.repeat(43),
            response: {
              id: 'AAAA',
              rawId: 'AAAA',
              type: 'public-key',
              clientExtensionResults: {},
              response: { clientDataJSON: 'AA', authenticatorData: 'AA', signature: 'AA' },
            },
          }),
        });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await finish()).status);
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      const limitedRes = await finish();
      expect(limitedRes.status).toBe(429);
      expect(Number(limitedRes.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await codeOf(limitedRes)).toBe('auth.rate_limited');
    } finally {
      await limited.close();
      await own.drop();
    }
  });
});

describe.skipIf(!executablePath)('single sign-on mode (AUTH_MODE=oidc)', () => {
  let idp: TestIdp;
  let oidc: TestGateway;
  let oidcCaller: Caller;

  const oidcGateway = async (extra: Record<string, string> = {}) => {
    const { port, origin } = await localOrigin();
    const started = await startTestGateway({
      databaseUrl: db.url,
      clock,
      env: {
        ...gateEnv('enforce'),
        GATEWAY_PLUGINS: 'auth',
        PORT: port,
        APP_BASE_URL: origin,
        AUTH_MODE: 'oidc',
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: 'gatehouse',
        AUTH_BREAK_GLASS: 'true',
        ...extra,
      },
    });
    return { gateway: started, caller: { url: started.url, origin } };
  };

  beforeAll(async () => {
    idp = await startTestIdp({
      clients: [{ ...DEFAULT_CLIENT, redirect_uris: ['http://localhost/auth/callback'] }],
    });
    ({ gateway: oidc, caller: oidcCaller } = await oidcGateway());
  });
  afterAll(async () => {
    await oidc?.close();
    await idp?.close();
  });

  it('a break-glass admin registers a passkey with its pending sign-in, then signs in with it alone; both audited', async () => {
    const userId = await seedLocalAccount(db.pool, {
      email: 'glass@example.com',
      password: PASSWORD,
      roles: ['*'],
    });
    const { body } = await passwordSignIn(oidcCaller, 'glass@example.com', PASSWORD);
    // A break-glass sign-in must enroll a factor before any session: the passkey is one.
    expect(body).toMatchObject({ status: 'second_factor_enrollment_required', methods: { passkey: true } });
    const page = await authenticator(oidcCaller.origin);
    const enrolled = await registerPasskey(oidcCaller, page, { pendingToken: body.pendingToken as string });
    expect(enrolled.res.status).toBe(200);
    expect(enrolled.body).toMatchObject({ status: 'signed_in', user: { id: userId, roles: ['*'] } });
    const alone = await passkeySignIn(oidcCaller, page);
    expect(alone.body).toMatchObject({ status: 'signed_in', user: { id: userId } });
    expect(await audited(userId, 'auth.login.break_glass', oidc)).toEqual([
      { method: 'password', factor: 'passkey' },
      { method: 'passkey', factor: 'passkey' },
    ]);

    // With AUTH_BREAK_GLASS=false no password path is open, and no passkey either.
    const closed = await oidcGateway({ AUTH_BREAK_GLASS: 'false' });
    try {
      const closedPage = await authenticator(closed.caller.origin);
      await closedPage.adoptCredentials(page);
      const refused = await passkeySignIn(closed.caller, closedPage);
      expect(refused.res.status).toBe(401);
      expect(refused.body).toMatchObject({ code: 'auth.passkey.invalid' });
    } finally {
      await closed.gateway.close();
    }
  });

  it('a non-admin’s passkey does not sign in, and a non-admin cannot register one', async () => {
    // Registered while the deployment was in local mode (the suite's own gateway, the same database).
    const { userId, cookie, page, passkeyId } = await withPasskey('staff@example.com');
    const oidcPage = await authenticator(oidcCaller.origin);
    await oidcPage.adoptCredentials(page);
    const refused = await passkeySignIn(oidcCaller, oidcPage);
    expect(refused.res.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'auth.passkey.invalid' });
    expect(await audited(userId, 'auth.passkey.failed', oidc)).toEqual([{ passkeyId, reason: 'mode' }]);
    // The same session, presented to the oidc deployment (same AUTH_SECRET, same sessions table).
    const res = await fetch(`${oidcCaller.url}/api/v1/auth/passkeys/register/begin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...withCookie(oidcCaller, cookie) },
      body: '{}',
    });
    expect(res.status).toBe(403);
    expect(await codeOf(res)).toBe('auth.passkey.not_allowed');
  });
});
