/**
 * The login page in a real browser (README, "Login pages"): for each sign-in mode, Chromium opens GET /login
 * under the page's own Content-Security-Policy and sees what the mode table offers, rendered by the server.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import {
  findChromium,
  launchChromium,
  LAUNCH_WAIT_MS,
  openPage,
  PAGE_WAIT_MS,
  type RecordedPage,
} from '../../../test/support/browser.ts';
import { startTestIdp } from '../../../test/support/oidc-idp.ts';

const executablePath = await findChromium();

// Boot in oidc mode reads the issuer's discovery document: a real provider on loopback.
const idp = await startTestIdp();
const OIDC = { OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: 'gatehouse' };
// Directory sign-in connects only when someone signs in; nobody does here.
const LDAP = {
  LDAP_ENABLED: 'true',
  LDAP_URL: 'ldap://127.0.0.1:1',
  LDAP_BIND_DN: 'cn=reader,dc=example,dc=org',
  LDAP_BIND_PASSWORD: 'reader-secret',
  LDAP_USER_BASE: 'ou=people,dc=example,dc=org',
};

let db: TestDatabase;
let browser: Browser | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  if (executablePath) browser = await launchChromium(executablePath);
}, LAUNCH_WAIT_MS * 3);
afterAll(async () => {
  await browser?.close();
  await idp.close();
  await db?.drop();
});

/** What a visitor sees: which parts of the page are shown. */
interface Seen {
  sso: boolean;
  password: boolean;
  ldapNote: boolean;
  breakGlassNote: boolean;
  passkey: boolean;
}

async function seen(recorded: RecordedPage): Promise<Seen> {
  const visible = (selector: string) => recorded.page.locator(selector).isVisible();
  return {
    sso: await visible('#sso-button'),
    password: await visible('#password-form'),
    ldapNote: await visible('#ldap-note'),
    breakGlassNote: await visible('#break-glass-note'),
    passkey: await visible('#passkey-button'),
  };
}

/** Elements and attributes the CSP forbids, counted in the DOM Chromium parsed from the served HTML. */
function inlineCode(recorded: RecordedPage) {
  return recorded.page.evaluate(() => ({
    inlineScripts: document.querySelectorAll('script:not([src])').length,
    styleElements: document.querySelectorAll('style').length,
    styleAttributes: document.querySelectorAll('[style]').length,
    handlerAttributes: [...document.querySelectorAll('*')].filter((element) =>
      element.getAttributeNames().some((name) => name.startsWith('on')),
    ).length,
    javascriptUrls: [...document.querySelectorAll('[href], [src], [action]')].filter((element) =>
      ['href', 'src', 'action'].some((name) =>
        (element.getAttribute(name) ?? '').trim().toLowerCase().startsWith('javascript:'),
      ),
    ).length,
  }));
}

const NONE: Seen = { sso: false, password: false, ldapNote: false, breakGlassNote: false, passkey: false };
// Passkeys are on when the relying party resolves: from an APP_BASE_URL on localhost (http is allowed there).
const PASSKEYS = { APP_BASE_URL: 'http://localhost:8080' };

/** A configuration of the gateway and what /login shows under it, per path. */
type Configuration = [
  name: string,
  settings: Record<string, string>,
  cases: Array<[path: string, expected: Seen]>,
];

const CONFIGURATIONS: Configuration[] = [
  // configuration, settings, [path, what is shown]
  ['local', { AUTH_MODE: 'local' }, [['/login', { ...NONE, password: true }]]],
  [
    'local with LDAP',
    { AUTH_MODE: 'local', ...LDAP },
    [['/login', { ...NONE, password: true, ldapNote: true }]],
  ],
  // The directory is where passwords come from; local ones are for break-glass admins, in the same form.
  [
    'LDAP_MODE=only',
    { AUTH_MODE: 'local', ...LDAP, LDAP_MODE: 'only' },
    [
      ['/login', { ...NONE, password: true, ldapNote: true }],
      ['/login?local=1', { ...NONE, password: true, ldapNote: true }],
    ],
  ],
  [
    'local with passkeys',
    { AUTH_MODE: 'local', ...PASSKEYS },
    [['/login', { ...NONE, password: true, passkey: true }]],
  ],
  [
    'oidc with passkeys',
    { AUTH_MODE: 'oidc', ...OIDC, ...PASSKEYS },
    [
      ['/login', { ...NONE, sso: true }],
      ['/login?local=1', { ...NONE, sso: true, password: true, breakGlassNote: true, passkey: true }],
    ],
  ],
  [
    'oidc',
    { AUTH_MODE: 'oidc', ...OIDC },
    [
      ['/login', { ...NONE, sso: true }],
      ['/login?local=1', { ...NONE, sso: true, password: true, breakGlassNote: true }],
    ],
  ],
  [
    'oidc with AUTH_BREAK_GLASS=false',
    { AUTH_MODE: 'oidc', AUTH_BREAK_GLASS: 'false', ...OIDC },
    [
      ['/login', { ...NONE, sso: true }],
      ['/login?local=1', { ...NONE, sso: true }],
    ],
  ],
  [
    'local+oidc',
    { AUTH_MODE: 'local+oidc', ...OIDC },
    [
      ['/login', { ...NONE, sso: true, password: true }],
      ['/login?local=1', { ...NONE, sso: true, password: true }],
    ],
  ],
];

describe.each(CONFIGURATIONS)('GET /login, %s', (_name, settings, cases) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      databaseUrl: db.url,
      env: { GATEWAY_PLUGINS: 'auth', APP_BASE_URL: 'http://127.0.0.1', ...settings },
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.skipIf(!executablePath).each(cases)(
    '%s shows what the mode offers, under a strict CSP with no inline code',
    async (path, expected) => {
      if (!browser) throw new Error('Chromium did not start');
      const recorded = await openPage(browser);
      try {
        const response = await recorded.page.goto(`${gateway.url}${path}`);
        expect(response?.status()).toBe(200);
        const csp = response?.headers()['content-security-policy'] ?? '';
        expect(csp.split('; ').sort()).toEqual(
          [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "connect-src 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
          ].sort(),
        );
        expect(await seen(recorded)).toEqual(expected);
        expect(await inlineCode(recorded)).toEqual({
          inlineScripts: 0,
          styleElements: 0,
          styleAttributes: 0,
          handlerAttributes: 0,
          javascriptUrls: 0,
        });
        if (expected.sso) {
          expect(await recorded.page.locator('#sso-button').getAttribute('href')).toBe(
            '/auth/oidc/start?returnTo=%2F',
          );
        }
        if (expected.sso && expected.password) {
          // Side by side: the two methods start on the same line of a desktop-width page.
          const sso = await recorded.page.locator('#sso-method').boundingBox();
          const password = await recorded.page.locator('#password-method').boundingBox();
          expect(sso?.y).toBe(password?.y);
          expect(sso?.x).toBeLessThan(password?.x ?? 0);
        }
        // The stylesheet applied (it was allowed and loaded): the methods are laid out as flex items.
        expect(
          await recorded.page.locator('.methods').evaluate((element) => getComputedStyle(element).display),
        ).toBe('flex');
        expect(recorded.hosts()).toEqual([new URL(gateway.url).host]);
        expect(recorded.problems).toEqual([]);
      } finally {
        await recorded.close();
      }
    },
    PAGE_WAIT_MS * 2,
  );
});
