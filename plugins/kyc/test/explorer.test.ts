/**
 * The KYC API explorer (README, "API document and explorer") in a real browser: Debian's Chromium, driven by
 * playwright-core, opens GET /docs under the page's own Content-Security-Policy (never bypassed), authorizes
 * with a sandbox API key and runs "Try it out" on initiate against the running gateway.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { createKey, createTenant, startKycGateway } from '../../../test/support/kyc.ts';
import { findChromium, launchChromium, LAUNCH_WAIT_MS } from '../../../test/support/browser.ts';

const executablePath = await findChromium();

/**
 * How long the page may take to render or react: Swagger UI is a large bundle, and on a loaded 2-core
 * machine rendering it takes seconds. Every wait is on a condition; this only bounds a failure.
 */
const PAGE_WAIT_MS = 60_000;

let db: TestDatabase;
let gateway: TestGateway;
let browser: Browser;
let sandboxKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startKycGateway({ databaseUrl: db.url });
  const tenant = await createTenant(gateway, { name: 'Explorer sandbox', sandbox: true });
  sandboxKey = (await createKey(gateway, tenant.id)).key;
  if (!executablePath) return;
  browser = await launchChromium(executablePath);
}, 3 * LAUNCH_WAIT_MS);
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await db?.drop();
});

/** Everything the page complains about: console errors, uncaught exceptions, CSP violations, failed loads. */
async function openExplorer(page: Page): Promise<{ problems: string[]; requests: Request[] }> {
  const problems: string[] = [];
  const requests: Request[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('request', (request) => requests.push(request));
  // Runs through the DevTools protocol, so it records violations without being subject to the CSP.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  page.setDefaultTimeout(PAGE_WAIT_MS);
  page.setDefaultNavigationTimeout(PAGE_WAIT_MS);
  const response = await page.goto(`${gateway.url}/docs`);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  await expect
    .poll(() => page.locator('.swagger-ui .info .title').textContent(), { timeout: PAGE_WAIT_MS })
    .toContain('Gatehouse KYC API');
  return { problems, requests };
}

describe('GET /docs', () => {
  it.skipIf(!executablePath)(
    'in Chromium, authorizes with a sandbox key and gets a 201 from "Try it out" on initiate',
    async () => {
      const page = await browser.newPage();
      try {
        const { problems, requests } = await openExplorer(page);

        await page.locator('.auth-wrapper button.authorize').click();
        const dialog = page.locator('.modal-ux');
        await dialog.locator('input').fill(sandboxKey);
        await dialog.locator('button.authorize').click();
        // Swagger UI marks the scheme "Authorized" and offers "Logout" once the key is taken.
        await expect
          .poll(() => dialog.locator('h6').textContent(), { timeout: PAGE_WAIT_MS })
          .toBe('Authorized');
        await dialog.locator('button.btn-done').click();

        const initiate = page.locator('#operations-Verifications-initiateVerification');
        await initiate.locator('.opblock-summary').click();
        await initiate.locator('button.try-out__btn').click();
        await initiate
          .locator('textarea.body-param__text')
          .fill(JSON.stringify({ type: 'INDIVIDUAL_KTP', subjectExternalRef: 'explorer-1-approve' }));
        const sent = page.waitForRequest(
          (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/kyc/initiate',
          { timeout: PAGE_WAIT_MS },
        );
        await initiate.locator('button.execute').click();

        const request = await sent;
        expect(await request.headerValue('x-api-key')).toBe(sandboxKey);
        const status = initiate.locator('.live-responses-table .response .response-col_status');
        await expect.poll(() => status.first().textContent(), { timeout: PAGE_WAIT_MS }).toContain('201');
        const body = await initiate
          .locator('.live-responses-table .response-col_description pre')
          .first()
          .textContent();
        expect(JSON.parse(body ?? '{}')).toMatchObject({
          subjectExternalRef: 'explorer-1-approve',
          sandbox: true,
        });

        // Every file the page loaded came from the gateway itself (no CDN).
        const origins = new Set(requests.map((r) => new URL(r.url()).origin));
        expect([...origins]).toEqual([new URL(gateway.url).origin]);
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    },
    // Several page waits in a row, each bounded by PAGE_WAIT_MS.
    4 * PAGE_WAIT_MS,
  );

  it('serves the explorer files only from its allow-list, cacheable and with their types', async () => {
    const html = await (await fetch(`${gateway.url}/docs`)).text();
    const bundle = /src="(docs\/assets\/swagger-ui-bundle\.js\?v=[0-9a-f]+)"/.exec(html)?.[1];
    expect(bundle).toBeDefined();
    const res = await fetch(`${gateway.url}/${bundle}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('vary')).toContain('Accept-Encoding');
    const plain = await fetch(`${gateway.url}/${bundle}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(await res.text());
    for (const path of [
      '/docs/assets/package.json',
      '/docs/assets/..%2F..%2Fpackage.json',
      '/docs/assets/',
    ]) {
      const refused = await fetch(`${gateway.url}${path}`);
      expect(refused.status, path).toBe(404);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});
