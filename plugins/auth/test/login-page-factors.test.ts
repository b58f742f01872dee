/**
 * The login page's second-factor steps in a real browser (README, "Login pages"): after a correct password,
 * Chromium proves a TOTP code or a recovery code, or enrolls an authenticator app from the QR code's key, sees
 * the recovery codes once, and ends on `returnTo` with a session. The page keeps its strict CSP throughout
 * (the QR code is adopted as parsed SVG, no `img-src`), and no violation is reported. The gateway's clock is
 * injected, so the codes the test computes are the ones the server expects.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_PAGE_CSP } from '../src/routes/login-page.ts';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import {
  findChromium,
  launchChromium,
  LAUNCH_WAIT_MS,
  openPage,
  PAGE_WAIT_MS,
  type RecordedPage,
  postedPaths,
  signedInAs,
} from '../../../test/support/browser.ts';
import { createManualClock } from '../../../test/support/core.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson } from '../../../test/support/http.ts';
import {
  beginTotp,
  confirmTotp,
  passwordSignIn,
  totpCode,
  type Caller,
} from '../../../test/support/second-factor.ts';

const executablePath = await findChromium();
const PASSWORD = 'violet umbrella 42';
const RETURN_TO = '/api/v1/auth/session';
const clock = createManualClock(Date.now());

let db: TestDatabase;
let gateway: TestGateway;
let browser: Browser | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  // Every password sign-in must pass or enroll a second factor (the admin toggle).
  await db.pool.query('UPDATE auth_settings SET require_totp = true');
  gateway = await startTestGateway({
    databaseUrl: db.url,
    clock,
    env: {
      GATEWAY_PLUGINS: 'auth',
      AUTH_MODE: 'local',
      APP_BASE_URL: 'http://127.0.0.1',
      // The steps' routes are exempt from the gate, like the password sign-in before them.
      ...gateEnv('enforce'),
    },
  });
  if (executablePath) browser = await launchChromium(executablePath);
}, LAUNCH_WAIT_MS * 3);
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await db?.drop();
});

/** The TOTP code of `secret` at the gateway's time, `steps` 30-second steps away. */
function codeAt(secret: string, steps = 0): Promise<string> {
  return totpCode(secret, new Date(clock.nowMs() + steps * 30_000));
}

const caller = (): Caller => ({ url: gateway.url, origin: 'http://127.0.0.1' });

/**
 * A new account with a confirmed authenticator app, enrolled over the API the way its first sign-in does it; its
 * secret and first recovery codes. The clock then moves one step on, past the step the confirmation burned.
 */
async function accountWithTotp(email: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  await seedLocalAccount(db.pool, { email, password: PASSWORD });
  const { body } = await passwordSignIn(caller(), email, PASSWORD);
  expect(body.status).toBe('second_factor_enrollment_required');
  const pending = { pendingToken: body.pendingToken ?? '' };
  const { secret } = await beginTotp(caller(), pending);
  const confirmed = await confirmTotp(caller(), pending, await codeAt(secret));
  expect(confirmed.body.status).toBe('signed_in');
  clock.advance(30_000);
  return { secret, recoveryCodes: confirmed.body.recoveryCodes ?? [] };
}

/** Runs `test` on a fresh page; then no CSP violation, no script error, and no host but the gateway. */
async function withPage(test: (recorded: RecordedPage) => Promise<void>): Promise<void> {
  if (!browser) throw new Error('Chromium did not start');
  const recorded = await openPage(browser);
  try {
    await test(recorded);
    expect(recorded.problems.filter((problem) => /CSP|pageerror/.test(problem))).toEqual([]);
    expect(recorded.hosts()).toEqual([new URL(gateway.url).host]);
  } finally {
    await recorded.close();
  }
}

/** Opens /login and submits the password form. */
async function enterPassword(recorded: RecordedPage, email: string): Promise<void> {
  const response = await recorded.page.goto(`${gateway.url}/login?returnTo=${encodeURIComponent(RETURN_TO)}`);
  expect(response?.headers()['content-security-policy']).toBe(LOGIN_PAGE_CSP);
  await recorded.page.locator('#email').fill(email);
  await recorded.page.locator('#password').fill(PASSWORD);
  await recorded.page.locator('#password-form button[type="submit"]').click();
}

const visible = (recorded: RecordedPage, selector: string) => recorded.page.locator(selector).isVisible();

describe.skipIf(!executablePath)('the second step in Chromium', () => {
  it(
    'asks for the TOTP code after the password, shows a wrong code’s problem title, and signs in with the right one',
    async () => {
      const { secret } = await accountWithTotp('totp@example.com');
      await withPage(async (recorded) => {
        await enterPassword(recorded, 'totp@example.com');
        const code = recorded.page.locator('#totp-code');
        await code.waitFor({ state: 'visible' });
        expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
        expect(await code.getAttribute('inputmode')).toBe('numeric');
        expect(await visible(recorded, '#password-method')).toBe(false);
        expect(await visible(recorded, '#use-recovery-code')).toBe(true);
        // Passkeys are off here (APP_BASE_URL is http on an IP address): not offered.
        expect(await visible(recorded, '#use-passkey')).toBe(false);

        // A well-formed code from ten steps ago: the API refuses it, the page shows why, in the API's words.
        await code.fill(await codeAt(secret, -10));
        await recorded.page.locator('#totp-form button[type="submit"]').click();
        const error = recorded.page.locator('#second-factor-error');
        await error.waitFor({ state: 'visible' });
        expect(await error.textContent()).toBe('The code is wrong or has been used');
        expect(await recorded.context.cookies()).toEqual([]);

        const now = await codeAt(secret);
        await code.fill(`${now.slice(0, 3)} ${now.slice(3)}`);
        await recorded.page.locator('#totp-form button[type="submit"]').click();
        expect(await signedInAs(recorded, RETURN_TO)).toBe('totp@example.com');
        expect(postedPaths(recorded)).toEqual([
          '/auth/login',
          '/api/v1/auth/login/totp',
          '/api/v1/auth/login/totp',
        ]);
      });
    },
    PAGE_WAIT_MS * 2,
  );

  it(
    'signs in with a recovery code, which then no longer works',
    async () => {
      const { recoveryCodes } = await accountWithTotp('recovery@example.com');
      const [first] = recoveryCodes;
      expect(first).toBeDefined();
      const useRecoveryCode = async (recorded: RecordedPage) => {
        await enterPassword(recorded, 'recovery@example.com');
        await recorded.page.locator('#use-recovery-code').click();
        expect(await visible(recorded, '#totp-form')).toBe(false);
        expect(await visible(recorded, '#use-totp')).toBe(true);
        await recorded.page.locator('#recovery-code').fill(first ?? '');
        await recorded.page.locator('#recovery-code-form button[type="submit"]').click();
      };
      await withPage(async (recorded) => {
        await useRecoveryCode(recorded);
        expect(await signedInAs(recorded, RETURN_TO)).toBe('recovery@example.com');
      });
      await withPage(async (recorded) => {
        await useRecoveryCode(recorded);
        const error = recorded.page.locator('#second-factor-error');
        await error.waitFor({ state: 'visible' });
        expect(await error.textContent()).toBe('The code is wrong or has been used');
        expect(new URL(recorded.page.url()).pathname).toBe('/login');
        expect(await recorded.context.cookies()).toEqual([]);
      });
    },
    PAGE_WAIT_MS * 3,
  );

  it(
    'goes back to the password form, with the reason, when the pending sign-in has expired',
    async () => {
      const { secret } = await accountWithTotp('slow@example.com');
      await withPage(async (recorded) => {
        await enterPassword(recorded, 'slow@example.com');
        await recorded.page.locator('#totp-code').waitFor({ state: 'visible' });
        // Past the five minutes a password sign-in waits for its second factor.
        clock.advance(301_000);
        await recorded.page.locator('#totp-code').fill(await codeAt(secret));
        await recorded.page.locator('#totp-form button[type="submit"]').click();
        const error = recorded.page.locator('#password-error');
        await error.waitFor({ state: 'visible' });
        expect(await error.textContent()).toBe(
          'This sign-in is no longer waiting for a second factor: sign in again',
        );
        expect(await visible(recorded, '#second-factor-step')).toBe(false);
        expect(await visible(recorded, '#password-form')).toBe(true);
        expect(await recorded.context.cookies()).toEqual([]);
      });
    },
    PAGE_WAIT_MS * 2,
  );
});

describe.skipIf(!executablePath)('enrollment at sign-in in Chromium', () => {
  it(
    'sets up an authenticator app from the QR code’s key, shows the recovery codes once, then goes to returnTo',
    async () => {
      await seedLocalAccount(db.pool, { email: 'new@example.com', password: PASSWORD });
      await withPage(async (recorded) => {
        const { page } = recorded;
        await enterPassword(recorded, 'new@example.com');
        await page.locator('#enrollment-step').waitFor({ state: 'visible' });
        // Passkeys are off here: only the authenticator app is offered.
        expect(await visible(recorded, '#enroll-passkey-choice')).toBe(false);
        await page.locator('#enroll-totp').click();

        // The QR code is drawn from parsed SVG nodes, at the stylesheet's size.
        const qr = page.locator('#totp-qr svg');
        await qr.waitFor({ state: 'visible' });
        expect(await page.locator('#totp-qr svg path').count()).toBeGreaterThan(0);
        expect((await qr.boundingBox())?.width).toBeGreaterThan(100);
        expect(await page.locator('#totp-uri').getAttribute('href')).toMatch(/^otpauth:\/\/totp\//);
        const secret = ((await page.locator('#totp-secret').textContent()) ?? '').replaceAll(' ', '');
        expect(secret).toMatch(/^[A-Z2-7]{32}$/);

        await page.locator('#enroll-code').fill(await codeAt(secret));
        await page.locator('#enroll-totp-form button[type="submit"]').click();
        await page.locator('#recovery-codes-step').waitFor({ state: 'visible' });
        const codes = await page.locator('#recovery-code-list li').allTextContents();
        expect(codes).toHaveLength(10);
        expect(new Set(codes).size).toBe(10);
        // Signed in already; the page waits for the user to say the codes are saved.
        expect(new URL(page.url()).pathname).toBe('/login');
        expect((await recorded.context.cookies()).map((cookie) => cookie.name)).toContain(
          'authjs.session-token',
        );
        await page.locator('#recovery-codes-done').click();
        expect(await signedInAs(recorded, RETURN_TO)).toBe('new@example.com');
        expect(postedPaths(recorded)).toEqual([
          '/auth/login',
          '/api/v1/auth/totp/enroll',
          '/api/v1/auth/totp/confirm',
        ]);
      });
    },
    PAGE_WAIT_MS * 2,
  );

  it(
    'the recovery codes shown are the account’s: one of them completes a later sign-in',
    async () => {
      await seedLocalAccount(db.pool, { email: 'later@example.com', password: PASSWORD });
      let saved = '';
      await withPage(async (recorded) => {
        const { page } = recorded;
        await enterPassword(recorded, 'later@example.com');
        await page.locator('#enroll-totp').click();
        await page.locator('#enroll-totp-form').waitFor({ state: 'visible' });
        const secret = ((await page.locator('#totp-secret').textContent()) ?? '').replaceAll(' ', '');
        await page.locator('#enroll-code').fill(await codeAt(secret));
        await page.locator('#enroll-totp-form button[type="submit"]').click();
        await page.locator('#recovery-codes-step').waitFor({ state: 'visible' });
        saved = (await page.locator('#recovery-code-list li').last().textContent()) ?? '';
      });
      const { body } = await passwordSignIn(caller(), 'later@example.com', PASSWORD);
      expect(body.status).toBe('second_factor_required');
      const signedIn = await postJson(gateway.url, '/api/v1/auth/login/recovery-code', {
        pendingToken: body.pendingToken,
        code: saved,
      });
      expect(((await signedIn.json()) as { status?: string }).status).toBe('signed_in');
    },
    PAGE_WAIT_MS * 2,
  );
});
