/**
 * Passkeys on the login page in a real browser (README, "Login pages"): Chromium with the DevTools virtual
 * authenticator (CTAP2, resident keys, user verification) creates a passkey at the enrollment step of a sign-in,
 * sees the recovery codes once, then signs in with it usernameless and as the second step of a password
 * sign-in. The page is opened at `http://localhost:<port>`, APP_BASE_URL's origin: a passkey's relying party
 * is a domain, never an IP address, and plain http is allowed on localhost alone.
 */
import type { Browser, CDPSession } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { freePort } from '../../../test/support/process.ts';

const executablePath = await findChromium();
const PASSWORD = 'violet umbrella 42';
const RETURN_TO = '/api/v1/auth/session';

let db: TestDatabase;
let gateway: TestGateway;
let app: string;
let browser: Browser | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  // Every password sign-in must pass or enroll a second factor, so a new account meets the enrollment step.
  await db.pool.query('UPDATE auth_settings SET require_totp = true');
  const port = await freePort();
  app = `http://localhost:${port}`;
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: { GATEWAY_PLUGINS: 'auth', AUTH_MODE: 'local', PORT: String(port), APP_BASE_URL: app },
  });
  if (executablePath) browser = await launchChromium(executablePath);
}, LAUNCH_WAIT_MS * 3);
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await db?.drop();
});

/** A fresh page; afterwards no CSP violation, no script error, and no host but the gateway's. */
async function withPage(test: (recorded: RecordedPage) => Promise<void>): Promise<void> {
  if (!browser) throw new Error('Chromium did not start');
  const recorded = await openPage(browser);
  try {
    await test(recorded);
    expect(recorded.problems.filter((problem) => /CSP|pageerror/.test(problem))).toEqual([]);
    expect(recorded.hosts()).toEqual([new URL(app).host]);
  } finally {
    await recorded.close();
  }
}

/** A platform authenticator that verifies its user (as a fingerprint reader would), attached to the page. */
async function virtualAuthenticator(recorded: RecordedPage): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await recorded.context.newCDPSession(recorded.page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

async function openLogin(recorded: RecordedPage): Promise<void> {
  const response = await recorded.page.goto(`${app}/login?returnTo=${encodeURIComponent(RETURN_TO)}`);
  expect(response?.status()).toBe(200);
}

async function enterPassword(recorded: RecordedPage, email: string): Promise<void> {
  await openLogin(recorded);
  await recorded.page.locator('#email').fill(email);
  await recorded.page.locator('#password').fill(PASSWORD);
  await recorded.page.locator('#password-form button[type="submit"]').click();
}

describe.skipIf(!executablePath)('passkeys on the login page, in Chromium', () => {
  it(
    'creates a passkey at the enrollment step, then signs in with it usernameless and as a second step',
    async () => {
      await seedLocalAccount(db.pool, { email: 'ada@example.com', password: PASSWORD });
      await withPage(async (recorded) => {
        const { page } = recorded;
        const authenticator = await virtualAuthenticator(recorded);

        // Enrollment: the passkey instead of an authenticator app, named by the user.
        await enterPassword(recorded, 'ada@example.com');
        await page.locator('#enroll-passkey-choice').waitFor({ state: 'visible' });
        await page.locator('#passkey-name').fill('Work laptop');
        await page.locator('#enroll-passkey').click();
        await page.locator('#recovery-codes-step').waitFor({ state: 'visible' });
        expect(await page.locator('#recovery-code-list li').count()).toBe(10);
        await page.locator('#recovery-codes-done').click();
        expect(await signedInAs(recorded, RETURN_TO)).toBe('ada@example.com');
        const { credentials } = await authenticator.cdp.send('WebAuthn.getCredentials', {
          authenticatorId: authenticator.id,
        });
        expect(credentials).toHaveLength(1);
        expect(credentials[0]?.isResidentCredential).toBe(true);
        const listed = await recorded.context.request.get(`${app}/api/v1/auth/passkeys`);
        expect(((await listed.json()) as { passkeys: Array<{ name: string }> }).passkeys).toEqual([
          expect.objectContaining({ name: 'Work laptop' }),
        ]);

        // Usernameless: no email, no password; the passkey names the account.
        await recorded.context.clearCookies();
        await openLogin(recorded);
        await page.locator('#passkey-button').click();
        expect(await signedInAs(recorded, RETURN_TO)).toBe('ada@example.com');

        // The second step of a password sign-in: the passkey is offered first (the account has no TOTP).
        await recorded.context.clearCookies();
        await enterPassword(recorded, 'ada@example.com');
        const usePasskey = page.locator('#use-passkey');
        await usePasskey.waitFor({ state: 'visible' });
        expect(await page.locator('#totp-form').isVisible()).toBe(false);
        expect(await page.locator('#use-recovery-code').isVisible()).toBe(true);
        await usePasskey.click();
        expect(await signedInAs(recorded, RETURN_TO)).toBe('ada@example.com');

        expect(postedPaths(recorded)).toEqual([
          '/auth/login',
          '/api/v1/auth/passkeys/register/begin',
          '/api/v1/auth/passkeys/register/finish',
          '/api/v1/auth/passkeys/sign-in/begin',
          '/api/v1/auth/passkeys/sign-in/finish',
          '/auth/login',
          '/api/v1/auth/passkeys/sign-in/begin',
          '/api/v1/auth/passkeys/sign-in/finish',
        ]);
      });
    },
    PAGE_WAIT_MS * 3,
  );

  it(
    'tells a browser without the WebAuthn JSON helpers that it cannot use passkeys here, and calls nothing',
    () =>
      withPage(async (recorded) => {
        await recorded.context.addInitScript(() => {
          Reflect.deleteProperty(window.PublicKeyCredential, 'parseRequestOptionsFromJSON');
        });
        await openLogin(recorded);
        await recorded.page.locator('#passkey-button').click();
        const error = recorded.page.locator('#passkey-error');
        await error.waitFor({ state: 'visible' });
        expect(await error.textContent()).toBe(
          'This browser cannot use passkeys here. Update it, or sign in another way.',
        );
        expect(postedPaths(recorded)).toEqual([]);
      }),
    PAGE_WAIT_MS * 2,
  );
});
