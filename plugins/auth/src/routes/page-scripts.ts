/**
 * The login pages' browser code (README, "Login pages"), served as files so the pages' Content-Security-Policy
 * allows no inline script or style. Plain DOM code with no library; it runs only after the server has already
 * rendered what the mode offers, so a browser without script still sees the right sign-in methods.
 *
 * Kept as text here rather than as `.js` files: the repository's TypeScript and lint setup covers server code
 * only, and these few lines are exercised end to end by the Chromium suites (plugins/auth/test/login-page*).
 * No backtick or dollar-brace may appear in them (they are template literals), and no backslash (a template
 * literal drops it). The login page's script is assembled in login-script.ts.
 */
import { SAFE_RETURN_TO } from './page-script-common.ts';

/**
 * The web callback of single sign-on: hands the provider's `code`, `state` (and `iss`, when the provider sent
 * one) to POST /api/v1/auth/oidc/exchange, which trades the code on the server, and goes to the answer's
 * `returnTo`. The page never calls the provider. The code is removed from the address bar first so it stays
 * out of the history. A refusal shows one generic message; an error the provider sent back is shown as is
 * (as text, never as markup).
 */
export const CALLBACK_SCRIPT = `'use strict';
(function () {
${SAFE_RETURN_TO}
  var params = new URLSearchParams(window.location.search);
  var status = document.getElementById('callback-status');
  var detail = document.getElementById('callback-detail');
  var back = document.getElementById('callback-back');
  window.history.replaceState(null, '', window.location.pathname);

  function fail(text, providerError) {
    status.textContent = text;
    status.classList.add('error');
    if (providerError) {
      detail.textContent = providerError.slice(0, 300);
      detail.hidden = false;
    }
    back.hidden = false;
  }

  var error = params.get('error');
  if (error) {
    var description = params.get('error_description');
    fail('The identity provider did not sign you in.', description ? error + ': ' + description : error);
    return;
  }
  var code = params.get('code');
  var state = params.get('state');
  if (!code || !state) {
    fail('Sign-in did not complete. Start again from the sign-in page.');
    return;
  }
  var body = { code: code, state: state };
  var iss = params.get('iss');
  if (iss) body.iss = iss;
  fetch('/api/v1/auth/oidc/exchange', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  })
    .then(function (response) {
      if (!response.ok) throw new Error('refused');
      return response.json();
    })
    .then(function (answer) {
      window.location.replace(safeReturnTo(answer && answer.returnTo));
    })
    .catch(function () {
      fail('Sign-in did not complete. Start again from the sign-in page.');
    });
})();
`;

/** One stylesheet for both pages. */
export const PAGES_CSS = `/* The hidden attribute wins over the display of buttons, flex boxes and the like. */
[hidden] {
  display: none !important;
}
:root {
  color-scheme: light dark;
  font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  line-height: 1.5;
}
body {
  margin: 0;
  min-height: 100vh;
  display: flex;
  align-items: center;
  justify-content: center;
  background: Canvas;
  color: CanvasText;
}
main {
  width: min(100% - 2rem, 46rem);
  padding: 2rem 0;
}
h1 {
  font-size: 1.6rem;
  margin: 0 0 1.5rem;
}
h2 {
  font-size: 1.1rem;
  margin: 0 0 1rem;
}
.methods {
  display: flex;
  flex-wrap: wrap;
  gap: 1.5rem;
}
.method {
  flex: 1 1 18rem;
  border: 1px solid color-mix(in srgb, CanvasText 20%, transparent);
  border-radius: 0.5rem;
  padding: 1.5rem;
}
label {
  display: block;
  margin: 0.75rem 0 0.25rem;
  font-weight: 600;
}
input {
  box-sizing: border-box;
  width: 100%;
  padding: 0.5rem;
  font: inherit;
}
button,
.button {
  display: inline-block;
  margin-top: 1rem;
  padding: 0.6rem 1.2rem;
  border: 0;
  border-radius: 0.35rem;
  background: #2456c7;
  color: #fff;
  font: inherit;
  font-weight: 600;
  text-decoration: none;
  cursor: pointer;
}
button:disabled {
  opacity: 0.6;
  cursor: progress;
}
button.secondary {
  background: transparent;
  color: inherit;
  border: 1px solid color-mix(in srgb, CanvasText 35%, transparent);
}
.alternatives {
  display: flex;
  flex-wrap: wrap;
  gap: 0 0.75rem;
}
.qr svg {
  display: block;
  width: 12rem;
  height: 12rem;
}
.secret,
.codes {
  font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace;
}
.secret {
  overflow-wrap: anywhere;
  user-select: all;
}
.codes {
  columns: 2;
  padding-left: 2rem;
}
.note {
  font-size: 0.9rem;
  opacity: 0.8;
}
.error {
  color: #c62828;
}
`;
