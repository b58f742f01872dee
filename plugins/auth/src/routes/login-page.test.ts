import { describe, expect, it } from 'vitest';
import type { AuthDeployment } from '../deployment/validate.ts';
import { escapeHtml, loginPageView, renderLoginPage } from './login-page.ts';
import { loadPageAssets } from './page-assets.ts';

type Shape = Pick<AuthDeployment, 'password' | 'ldap' | 'oidc'>;
const LOCAL: Shape = { password: 'everyone', ldap: false, oidc: false };
const LOCAL_LDAP: Shape = { password: 'everyone', ldap: true, oidc: false };
const OIDC: Shape = { password: 'break-glass-admins', ldap: false, oidc: true };
const OIDC_NO_BREAK_GLASS: Shape = { password: 'nobody', ldap: false, oidc: true };
const BOTH: Shape = { password: 'everyone', ldap: false, oidc: true };

describe('loginPageView (the mode table)', () => {
  it.each([
    ['local', LOCAL, false, { password: true, breakGlass: false, ldap: false, sso: false }],
    ['local with LDAP', LOCAL_LDAP, false, { password: true, breakGlass: false, ldap: true, sso: false }],
    ['oidc', OIDC, false, { password: false, breakGlass: false, ldap: false, sso: true }],
    ['oidc, ?local=1', OIDC, true, { password: true, breakGlass: true, ldap: false, sso: true }],
    [
      'oidc without break-glass, ?local=1',
      OIDC_NO_BREAK_GLASS,
      true,
      { password: false, breakGlass: false, ldap: false, sso: true },
    ],
    ['local+oidc', BOTH, false, { password: true, breakGlass: false, ldap: false, sso: true }],
    ['local+oidc, ?local=1', BOTH, true, { password: true, breakGlass: false, ldap: false, sso: true }],
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

  it('shows no password form with ?local=1 when break-glass is off', () => {
    const html = renderLoginPage(loginPageView(OIDC_NO_BREAK_GLASS, { local: true }), '/', assets);
    expect(html).toContain('id="sso-button"');
    expect(html).not.toContain('id="password-form"');
  });
});

it('escapeHtml leaves no markup or attribute break', () => {
  expect(escapeHtml(`"'<>&`)).toBe('&quot;&#39;&lt;&gt;&amp;');
});
