import { describe, expect, it } from 'vitest';
import type { AuthDeployment } from '../deployment/validate.ts';
import { escapeHtml, loginPageView, renderLoginPage } from './login-page.ts';
import { loadPageAssets } from './page-assets.ts';

type Shape = Pick<AuthDeployment, 'mode' | 'password' | 'ldap' | 'ldapOnly' | 'oidc' | 'webauthn'>;
const BASE = { ldap: false, ldapOnly: false, webauthn: null };
const LOCAL: Shape = { ...BASE, mode: 'local', password: 'everyone', oidc: false };
const LOCAL_LDAP: Shape = { ...LOCAL, ldap: true };
// LDAP_MODE=only: local passwords for break-glass admins, directory passwords for everyone.
const LDAP_ONLY: Shape = { ...LOCAL, password: 'break-glass-admins', ldap: true, ldapOnly: true };
const LDAP_ONLY_NO_BREAK_GLASS: Shape = { ...LDAP_ONLY, password: 'nobody' };
const OIDC: Shape = { ...BASE, mode: 'oidc', password: 'break-glass-admins', oidc: true };
const OIDC_NO_BREAK_GLASS: Shape = { ...OIDC, password: 'nobody' };
const BOTH: Shape = { ...BASE, mode: 'local+oidc', password: 'everyone', oidc: true };
const BOTH_LDAP_ONLY: Shape = { ...BOTH, password: 'break-glass-admins', ldap: true, ldapOnly: true };
const WEBAUTHN = { rpId: 'localhost', origins: ['http://localhost:8080'] };

const SHOWN = {
  password: false,
  breakGlass: false,
  ldap: false,
  ldapOnly: false,
  sso: false,
  passkeys: false,
};

describe('loginPageView (the mode table)', () => {
  it.each([
    ['local', LOCAL, false, { ...SHOWN, password: true }],
    ['local with LDAP', LOCAL_LDAP, false, { ...SHOWN, password: true, ldap: true }],
    ['LDAP_MODE=only', LDAP_ONLY, false, { ...SHOWN, password: true, ldap: true, ldapOnly: true }],
    ['LDAP_MODE=only, ?local=1', LDAP_ONLY, true, { ...SHOWN, password: true, ldap: true, ldapOnly: true }],
    [
      'LDAP_MODE=only without break-glass',
      LDAP_ONLY_NO_BREAK_GLASS,
      false,
      { ...SHOWN, password: true, ldap: true, ldapOnly: true },
    ],
    [
      'local+oidc with LDAP_MODE=only',
      BOTH_LDAP_ONLY,
      false,
      { ...SHOWN, password: true, ldap: true, ldapOnly: true, sso: true },
    ],
    ['oidc', OIDC, false, { ...SHOWN, sso: true }],
    ['oidc, ?local=1', OIDC, true, { ...SHOWN, password: true, breakGlass: true, sso: true }],
    ['oidc without break-glass, ?local=1', OIDC_NO_BREAK_GLASS, true, { ...SHOWN, sso: true }],
    ['local+oidc', BOTH, false, { ...SHOWN, password: true, sso: true }],
    ['local+oidc, ?local=1', BOTH, true, { ...SHOWN, password: true, sso: true }],
    [
      'local with passkeys',
      { ...LOCAL, webauthn: WEBAUTHN },
      false,
      { ...SHOWN, password: true, passkeys: true },
    ],
    [
      'local+oidc with passkeys',
      { ...BOTH, webauthn: WEBAUTHN },
      false,
      { ...SHOWN, password: true, sso: true, passkeys: true },
    ],
    // In oidc mode only break-glass admins may use a passkey: it is offered beside their form alone.
    ['oidc with passkeys', { ...OIDC, webauthn: WEBAUTHN }, false, { ...SHOWN, sso: true }],
    [
      'oidc with passkeys, ?local=1',
      { ...OIDC, webauthn: WEBAUTHN },
      true,
      { ...SHOWN, password: true, breakGlass: true, sso: true, passkeys: true },
    ],
    [
      'oidc with passkeys without break-glass, ?local=1',
      { ...OIDC_NO_BREAK_GLASS, webauthn: WEBAUTHN },
      true,
      { ...SHOWN, sso: true },
    ],
  ] as const)('%s', (_name, deployment, local, expected) => {
    expect(loginPageView(deployment, { local })).toEqual(expected);
  });
});

describe('renderLoginPage', () => {
  const assets = loadPageAssets();

  it('links the single sign-on start with the returnTo, and has no inline script or style', () => {
    const html = renderLoginPage(loginPageView(BOTH, { local: false }), '/leads?x=1&y=2', assets);
    expect(html).toContain('href="/auth/oidc/start?returnTo=%2Fleads%3Fx%3D1%26y%3D2"');
    expect(html).toContain('data-return-to="/leads?x=1&amp;y=2"');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it('hides the second-factor steps, and renders them only with the password form', () => {
    const html = renderLoginPage(loginPageView(LOCAL, { local: false }), '/', assets);
    for (const id of ['second-factor-step', 'enrollment-step', 'recovery-codes-step'])
      expect(html).toMatch(new RegExp(`<section [^>]*id="${id}" hidden>`));
    expect(html).toContain('autocomplete="one-time-code" inputmode="numeric"');
    const sso = renderLoginPage(loginPageView(OIDC, { local: false }), '/', assets);
    expect(sso).not.toContain('second-factor-step');
  });

  it('says under LDAP_MODE=only that the directory password is the one to use', () => {
    const html = renderLoginPage(loginPageView(LDAP_ONLY, { local: false }), '/', assets);
    expect(html).toContain('id="password-form"');
    expect(html).toContain('Sign in with your directory (LDAP) email and password.');
    expect(html).not.toContain('break-glass-note');
  });

  it('shows no password form with ?local=1 when break-glass is off', () => {
    const html = renderLoginPage(loginPageView(OIDC_NO_BREAK_GLASS, { local: true }), '/', assets);
    expect(html).toContain('id="sso-button"');
    expect(html).not.toContain('id="password-form"');
  });
});

it('escapeHtml leaves no markup or attribute break', () => {
  expect(escapeHtml(`"'<>&`)).toBe('&quot;&#39;&lt;&gt;&amp;');
});
