/**
 * Single sign-on in a real browser (README, "Single sign-on", "Login pages"): Chromium clicks the login page's
 * single sign-on button, signs in on the provider's own pages (oidc-provider on loopback), comes back through
 * `/auth/callback`, and ends with a session cookie that passes gate layer 2. The page's network log shows the
 * browser never called the provider's token endpoint.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, LAUNCH_WAIT_MS, launchChromium, openPage } from '../../../test/support/browser.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv, sign } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { DEFAULT_CLIENT, startTestIdp, type TestIdp } from '../../../test/support/oidc-idp.ts';
import { freePort } from '../../../test/support/process.ts';

const executablePath = await findChromium();
let db: TestDatabase;
let idp: TestIdp;
let gateway: TestGateway;
let browser: Browser | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  // The browser comes back to the gateway itself: APP_BASE_URL is its real address, registered at the provider.
  const port = await freePort();
  const app = `http://127.0.0.1:${port}`;
  idp = await startTestIdp({ clients: [{ ...DEFAULT_CLIENT, redirect_uris: [`${app}/auth/callback`] }] });
  idp.accounts.set('ada-sub', { email: 'ada@example.com', email_verified: true, name: 'Ada' });
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: {
      ...gateEnv('enforce'),
      GATEWAY_PLUGINS: 'auth',
      PORT: String(port),
      APP_BASE_URL: app,
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: 'gatehouse',
    },
  });
  if (executablePath) browser = await launchChromium(executablePath);
}, LAUNCH_WAIT_MS * 2);
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await idp?.close();
  await db?.drop();
});

describe('single sign-on in Chromium', () => {
  it.skipIf(!executablePath)(
    '/login → provider → /auth/callback → a session cookie the gate accepts; no token request from the browser',
    async () => {
      const recorded = await openPage(browser as Browser);
      try {
        const { page } = recorded;
        await page.goto(`${gateway.url}/login?returnTo=${encodeURIComponent('/api/v1/auth/session')}`);
        await page.click('#sso-button');
        // The provider's own login and consent pages.
        await page.waitForURL((url) => url.origin === idp.issuer);
        const loginPage = page.url();
        await page.fill('input[name="login"]', 'ada-sub');
        await page.fill('input[name="password"]', 'anything');
        await page.click('button[type="submit"]');
        // Then its consent page (another interaction), unless the provider skips it.
        await page.waitForURL((url) => url.href !== loginPage && !url.pathname.startsWith('/auth/'));
        if (new URL(page.url()).origin === idp.issuer) await page.click('button[type="submit"]');
        // Back at the gateway: the callback page hands the code over, then goes to returnTo.
        await page.waitForURL(`${gateway.url}/api/v1/auth/session`);
        expect(await page.textContent('body')).toContain('ada@example.com');

        const cookies = await recorded.context.cookies(gateway.url);
        const session = cookies.find((cookie) => cookie.name === 'authjs.session-token');
        expect(session?.httpOnly).toBe(true);
        const gated = await fetch(`${gateway.url}/api/v1/gate/identity`, {
          headers: {
            'x-internal-signature': sign({ method: 'GET', url: '/api/v1/gate/identity' }),
            'x-forwarded-session': session?.value ?? '',
          },
        });
        expect(gated.status).toBe(200);

        const visited = recorded.requests.map((request) => new URL(request.url));
        expect(visited.some((url) => url.origin === idp.issuer && url.pathname === '/auth')).toBe(true);
        expect(
          visited.filter((url) => url.origin === idp.issuer && url.pathname.startsWith('/token')),
        ).toEqual([]);
        expect(idp.tokenRequests()).toBe(1); // made by the gateway
        expect(
          recorded.requests.some(
            (request) =>
              request.method === 'POST' && request.url === `${gateway.url}/api/v1/auth/oidc/exchange`,
          ),
        ).toBe(true);
      } finally {
        await recorded.close();
      }
    },
  );
});
