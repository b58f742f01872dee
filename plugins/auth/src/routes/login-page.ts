import type { AuthDeployment } from '../deployment/validate.ts';
import { secondFactorSteps } from './login-page-steps.ts';
import { assetHref, type PageAsset, type PageFile } from './page-assets.ts';

/**
 * The login pages' Content-Security-Policy, replacing the core's `default-src 'none'` on these pages only:
 * script, style and fetches from this origin only, no inline script or style, forms post only here, never
 * framed, no `<base>`. Nothing else (images, fonts, frames) may load at all.
 */
export const LOGIN_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The callback page posts no form: `form-action 'none'`, otherwise the login page's policy. */
export const CALLBACK_PAGE_CSP = LOGIN_PAGE_CSP.replace("form-action 'self'", "form-action 'none'");

/** What /login shows (README, "Login pages"): decided on the server, before any script runs. */
export interface LoginPageView {
  /** The email and password form (and, after it, the second-factor steps). */
  password: boolean;
  /** The password form is the administrator affordance of oidc mode (`?local=1`). */
  breakGlass: boolean;
  /** The note about directory (LDAP) passwords. */
  ldap: boolean;
  /** LDAP_MODE=only: the directory is where passwords come from, so the note says so rather than "too". */
  ldapOnly: boolean;
  /** The single sign-on button. */
  sso: boolean;
  /** "Sign in with a passkey" (usernameless). */
  passkeys: boolean;
}

type ViewedDeployment = Pick<AuthDeployment, 'mode' | 'password' | 'ldap' | 'ldapOnly' | 'oidc' | 'webauthn'>;

/**
 * The mode table: local offers the password form (and says directory passwords work when LDAP is on); oidc
 * offers single sign-on, and the password form only with `?local=1` while break-glass is on; local+oidc offers
 * both. With LDAP on the form is always there: under LDAP_MODE=only local passwords are for break-glass admins
 * alone, but every directory account signs in through the same form. Passkeys are offered wherever a passkey
 * may sign in: every mode but oidc, where only break-glass admins may, so only beside their form. Hiding a
 * method is cosmetic: the sign-in routes enforce the mode whatever the page shows.
 */
export function loginPageView(deployment: ViewedDeployment, options: { local: boolean }): LoginPageView {
  const breakGlass =
    deployment.mode === 'oidc' && deployment.password === 'break-glass-admins' && options.local;
  const password = deployment.password === 'everyone' || deployment.ldap || breakGlass;
  return {
    password,
    breakGlass,
    ldap: password && deployment.ldap,
    ldapOnly: password && deployment.ldap && deployment.ldapOnly,
    sso: deployment.oidc,
    passkeys: deployment.webauthn !== null && (deployment.mode !== 'oidc' || breakGlass),
  };
}

/** Text for an HTML text node or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Where the single sign-on button starts the web flow. */
export const OIDC_START_PATH = '/auth/oidc/start';

/** GET /login: markup only; `returnTo` must already be a safe same-origin path (domain/return-to.ts). */
export function renderLoginPage(
  view: LoginPageView,
  returnTo: string,
  assets: ReadonlyMap<PageFile, PageAsset>,
): string {
  const sections = [
    view.sso ? ssoSection(returnTo) : '',
    view.password ? passwordSection(view, returnTo) : '',
    view.passkeys ? passkeySection(view, returnTo) : '',
  ]
    .filter(Boolean)
    .join('\n');
  // The steps after a correct password, hidden until the script needs one.
  const steps = view.password ? `\n${secondFactorSteps()}` : '';
  return page({
    title: 'Sign in',
    script: assetHref(assets, 'login.js'),
    style: assetHref(assets, 'pages.css'),
    body: `<h1>Sign in</h1>
      <div class="methods" id="methods">
${sections}
      </div>${steps}`,
  });
}

/** GET /auth/callback: a status line its script fills in; no data from the request is rendered. */
export function renderCallbackPage(assets: ReadonlyMap<PageFile, PageAsset>): string {
  return page({
    title: 'Signing in',
    script: assetHref(assets, 'callback.js'),
    style: assetHref(assets, 'pages.css'),
    body: `<h1>Single sign-on</h1>
      <p id="callback-status" role="status">Signing you in…</p>
      <p id="callback-detail" class="note" hidden></p>
      <p><a id="callback-back" href="/login" hidden>Back to the sign-in page</a></p>`,
  });
}

function ssoSection(returnTo: string): string {
  const href = `${OIDC_START_PATH}?returnTo=${encodeURIComponent(returnTo)}`;
  return `        <section class="method" id="sso-method">
          <h2>Single sign-on</h2>
          <p>Sign in with your organisation's account.</p>
          <a class="button" id="sso-button" href="${escapeHtml(href)}">Sign in with single sign-on</a>
        </section>`;
}

function passwordSection(view: LoginPageView, returnTo: string): string {
  const heading = view.breakGlass ? 'Administrator sign-in' : 'Email and password';
  const notes = [
    view.breakGlass
      ? '<p class="note" id="break-glass-note">For administrators while single sign-on is unavailable.</p>'
      : '',
    view.ldap ? `<p class="note" id="ldap-note">${ldapNote(view)}</p>` : '',
  ].filter(Boolean);
  return `        <section class="method" id="password-method">
          <h2>${heading}</h2>
          ${notes.join('\n          ')}
          <form id="password-form" method="post" action="/auth/login" data-return-to="${escapeHtml(returnTo)}">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required>
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required>
            <p class="error" id="password-error" role="alert" hidden></p>
            <button type="submit">Sign in</button>
          </form>
        </section>`;
}

function passkeySection(view: LoginPageView, returnTo: string): string {
  const note = view.breakGlass
    ? 'For administrators while single sign-on is unavailable.'
    : 'Use a passkey saved on this device, on your phone or in your password manager.';
  return `        <section class="method" id="passkey-method">
          <h2>Passkey</h2>
          <p class="note">${note}</p>
          <button type="button" id="passkey-button" data-return-to="${escapeHtml(returnTo)}">Sign in with a passkey</button>
          <p class="error" id="passkey-error" role="alert" hidden></p>
        </section>`;
}

function ldapNote(view: LoginPageView): string {
  return view.ldapOnly
    ? 'Sign in with your directory (LDAP) email and password.'
    : 'Your directory (LDAP) password works here too.';
}

function page(parts: { title: string; script: string; style: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${parts.title}</title>
    <link rel="stylesheet" href="${parts.style}">
    <script src="${parts.script}" defer></script>
  </head>
  <body>
    <main>
      ${parts.body}
    </main>
  </body>
</html>
`;
}
