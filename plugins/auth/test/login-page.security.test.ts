/**
 * The login pages' security properties in a real browser (README, "Login pages"): a password sign-in through
 * the page, errors that never tell whether an account exists, no open redirect after sign-in, the callback
 * page's hand-over to the exchange, and the pages and their files reachable with the API gate enforcing.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import {
  findChromium,
  launchChromium,
  LAUNCH_WAIT_MS,
  openPage,
  PAGE_WAIT_MS,
  type RecordedPage,
} from '../../../test/support/browser.ts';
import { createManualClock } from '../../../test/support/core.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';

const executablePath = await findChromium();
const PASSWORD = 'violet umbrella 42';
const GENERIC = 'Sign-in failed. Check the email address and the password.';
// Frozen: a rate limit stays in force for as long as the test looks at it.
const clock = createManualClock(Date.now());

let db: TestDatabase;
let gateway: TestGateway;
let browser: Browser | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  for (const email of ['ada@example.com', 'grace@example.com', 'limited@example.com'])
    await seedLocalAccount(db.pool, { email, password: PASSWORD });
  gateway = await startTestGateway({
    databaseUrl: db.url,
    clock,
    env: {
      GATEWAY_PLUGINS: 'auth',
      AUTH_MODE: 'local',
      APP_BASE_URL: 'http://127.0.0.1',
      // The pages must work with the gate enforcing: they are exempt, like the sign-in routes they call.
      ...gateEnv('enforce'),
      LOGIN_FREE_FAILURES_PER_ACCOUNT: '3',
    },
  });
  if (executablePath) browser = await launchChromium(executablePath);
}, LAUNCH_WAIT_MS * 3);
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await db?.drop();
});

async function withPage(test: (recorded: RecordedPage) => Promise<void>): Promise<void> {
  if (!browser) throw new Error('Chromium did not start');
  const recorded = await openPage(browser);
  try {
    await test(recorded);
    expect(recorded.problems.filter((problem) => problem.includes('CSP'))).toEqual([]);
    expect(recorded.hosts()).toEqual([new URL(gateway.url).host]);
  } finally {
    await recorded.close();
  }
}

async function signIn(recorded: RecordedPage, path: string, email: string, password: string) {
  const response = await recorded.page.goto(`${gateway.url}${path}`);
  expect(response?.status()).toBe(200);
  await recorded.page.locator('#email').fill(email);
  await recorded.page.locator('#password').fill(password);
  await recorded.page.locator('#password-form button[type="submit"]').click();
}

const pathOf = (recorded: RecordedPage) => new URL(recorded.page.url()).pathname;

describe.skipIf(!executablePath)('GET /login in Chromium', () => {
  it(
    'signs in with a password, as JSON, and ends on returnTo with the session cookie set',
    () =>
      withPage(async (recorded) => {
        await signIn(recorded, '/login?returnTo=/api/v1/auth/session', 'ada@example.com', PASSWORD);
        await recorded.page.waitForURL((url) => url.pathname === '/api/v1/auth/session');
        const identity = JSON.parse((await recorded.page.locator('body').textContent()) ?? '{}') as {
          identity?: { email?: string };
        };
        expect(identity.identity?.email).toBe('ada@example.com');
        const cookie = (await recorded.context.cookies()).find((c) => c.name === 'authjs.session-token');
        expect(cookie?.httpOnly).toBe(true);
        expect(cookie?.sameSite).toBe('Lax');
        // The script posted JSON; the form itself was never submitted.
        expect(
          recorded.requests
            .filter((request) => request.method === 'POST')
            .map((request) => new URL(request.url).pathname),
        ).toEqual(['/auth/login']);
      }),
    PAGE_WAIT_MS * 2,
  );

  it(
    'shows one generic message for a wrong password and for an unknown account, and stays on the page',
    async () => {
      const messages: string[] = [];
      for (const email of ['grace@example.com', 'nobody@example.com']) {
        await withPage(async (recorded) => {
          await signIn(recorded, '/login', email, 'not the password');
          const error = recorded.page.locator('#password-error');
          await error.waitFor({ state: 'visible' });
          messages.push((await error.textContent()) ?? '');
          expect(pathOf(recorded)).toBe('/login');
          expect(await recorded.page.locator('#password-form button').isEnabled()).toBe(true);
          expect(await recorded.context.cookies()).toEqual([]);
        });
      }
      expect(messages).toEqual([GENERIC, GENERIC]);
    },
    PAGE_WAIT_MS * 4,
  );

  it(
    'says how long to wait when the brute-force limit answers 429',
    () =>
      withPage(async (recorded) => {
        let status = 0;
        for (let attempt = 0; attempt < 10 && status !== 429; attempt++) {
          const res = await fetch(`${gateway.url}/auth/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'limited@example.com', password: 'wrong' }),
          });
          status = res.status;
        }
        expect(status).toBe(429);
        await signIn(recorded, '/login', 'limited@example.com', PASSWORD);
        const error = recorded.page.locator('#password-error');
        await error.waitFor({ state: 'visible' });
        expect(await error.textContent()).toMatch(/^Too many attempts\. Try again in \d+ seconds?\.$/);
        expect(await recorded.context.cookies()).toEqual([]);
      }),
    PAGE_WAIT_MS * 2,
  );

  it(
    'ends on / when returnTo names another site (no open redirect)',
    () =>
      withPage(async (recorded) => {
        await signIn(
          recorded,
          `/login?returnTo=${encodeURIComponent('https://evil.example/phish')}`,
          'ada@example.com',
          PASSWORD,
        );
        await recorded.page.waitForURL((url) => url.pathname === '/');
        expect(new URL(recorded.page.url()).origin).toBe(new URL(gateway.url).origin);
      }),
    PAGE_WAIT_MS * 2,
  );

  it(
    "the script also refuses a returnTo that leaves the origin, even one planted in the page's markup",
    () =>
      withPage(async (recorded) => {
        await recorded.page.goto(`${gateway.url}/login`);
        await recorded.page
          .locator('#password-form')
          .evaluate((form) => form.setAttribute('data-return-to', '/\\evil.example/phish'));
        await recorded.page.locator('#email').fill('ada@example.com');
        await recorded.page.locator('#password').fill(PASSWORD);
        await recorded.page.locator('#password-form button[type="submit"]').click();
        await recorded.page.waitForURL((url) => url.pathname === '/');
        expect(new URL(recorded.page.url()).origin).toBe(new URL(gateway.url).origin);
      }),
    PAGE_WAIT_MS * 2,
  );
});

describe.skipIf(!executablePath)('GET /auth/callback in Chromium', () => {
  const EXCHANGE = '/api/v1/auth/oidc/exchange';

  it(
    "shows the provider's error as text and calls nothing",
    () =>
      withPage(async (recorded) => {
        const description = '<b>The user said no</b>';
        await recorded.page.goto(
          `${gateway.url}/auth/callback?error=access_denied&error_description=${encodeURIComponent(description)}`,
        );
        const detail = recorded.page.locator('#callback-detail');
        await detail.waitFor({ state: 'visible' });
        expect(await recorded.page.locator('#callback-status').textContent()).toBe(
          'The identity provider did not sign you in.',
        );
        expect(await detail.textContent()).toBe(`access_denied: ${description}`);
        expect(await detail.locator('b').count()).toBe(0);
        expect(await recorded.page.locator('#callback-back').isVisible()).toBe(true);
        expect(recorded.requests.filter((request) => request.url.includes(EXCHANGE))).toEqual([]);
      }),
    PAGE_WAIT_MS * 2,
  );

  it(
    'posts code, state and iss to the exchange, drops the code from the address bar, and shows a generic refusal',
    () =>
      withPage(async (recorded) => {
        const posted = recorded.page.waitForRequest((request) => request.url().endsWith(EXCHANGE));
        await recorded.page.goto(
          `${gateway.url}/auth/callback?code=the-code&state=the-state&iss=${encodeURIComponent('http://127.0.0.1:1')}`,
        );
        const request = await posted;
        expect(request.method()).toBe('POST');
        expect(request.postDataJSON()).toEqual({
          code: 'the-code',
          state: 'the-state',
          iss: 'http://127.0.0.1:1',
        });
        expect(recorded.page.url()).toBe(`${gateway.url}/auth/callback`);
        const status = recorded.page.locator('#callback-status.error');
        await status.waitFor({ state: 'visible' });
        expect(await status.textContent()).toBe(
          'Sign-in did not complete. Start again from the sign-in page.',
        );
        expect(await recorded.page.locator('#callback-detail').isVisible()).toBe(false);
      }),
    PAGE_WAIT_MS * 2,
  );

  it.each([
    ['/inbox?tab=mine', '/inbox'],
    ['https://evil.example/phish', '/'],
  ])(
    'goes to the answer’s returnTo %s, if it is on this origin, after a 200 (and sends no iss without one)',
    (returnTo, expected) =>
      withPage(async (recorded) => {
        // The exchange's answer, standing in for the route the single sign-on core serves.
        await recorded.page.route(`**${EXCHANGE}`, (route) =>
          route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ returnTo }) }),
        );
        const posted = recorded.page.waitForRequest((request) => request.url().endsWith(EXCHANGE));
        await recorded.page.goto(`${gateway.url}/auth/callback?code=c&state=s`);
        expect((await posted).postDataJSON()).toEqual({ code: 'c', state: 's' });
        await recorded.page.waitForURL((url) => url.pathname === expected);
        expect(new URL(recorded.page.url()).origin).toBe(new URL(gateway.url).origin);
      }),
    PAGE_WAIT_MS * 2,
  );
});

describe('the pages over HTTP', () => {
  it('are exempt from the API gate, which refuses a gated route without credentials', async () => {
    const html = await (await fetch(`${gateway.url}/login`)).text();
    const script = /src="(\/auth\/assets\/login\.js\?v=[0-9a-f]+)"/.exec(html)?.[1];
    const style = /href="(\/auth\/assets\/pages\.css\?v=[0-9a-f]+)"/.exec(html)?.[1];
    for (const path of ['/login', '/login?local=1', '/auth/callback', script, style]) {
      const res = await fetch(`${gateway.url}${path ?? '/missing'}`);
      expect(res.status, path).toBe(200);
    }
    expect((await fetch(`${gateway.url}/api/v1/admin/users`)).status).toBe(401);
  });

  it('never cache a page, and serve its files for good with a content hash and an ETag', async () => {
    const page = await fetch(`${gateway.url}/auth/callback`);
    expect(page.headers.get('cache-control')).toBe('no-store');
    // The core's policy: the callback URL's code never leaves in a Referer when the page loads its files.
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'none'");
    const html = await page.text();
    const script = /src="(\/auth\/assets\/callback\.js\?v=([0-9a-f]{16}))"/.exec(html);
    expect(script).not.toBeNull();
    const res = await fetch(`${gateway.url}${script?.[1] ?? ''}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('etag')).toBe(`"${script?.[2]}"`);
    const again = await fetch(`${gateway.url}${script?.[1] ?? ''}`, {
      headers: { 'if-none-match': res.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
  });

  it('serve no file outside their list', async () => {
    for (const path of ['/auth/assets/index.ts', '/auth/assets/..%2F..%2Fpackage.json', '/auth/assets/']) {
      const res = await fetch(`${gateway.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('render a returnTo that holds markup as inert text in an attribute', async () => {
    const returnTo = '/x"><script src="/evil.js"></script>';
    const html = await (await fetch(`${gateway.url}/login?returnTo=${encodeURIComponent(returnTo)}`)).text();
    expect(html).not.toContain('<script src="/evil.js">');
    expect(html).toContain('data-return-to="/x%22%3E%3Cscript%20src=%22/evil.js%22%3E%3C/script%3E"');
  });
});
