/**
 * The login pages' browser code (README, "Login pages"), served as files so the pages' Content-Security-Policy
 * allows no inline script or style. Plain DOM code with no library; it runs only after the server has already
 * rendered what the mode offers, so a browser without script still sees the right sign-in methods.
 *
 * Kept as text here rather than as `.js` files: the repository's TypeScript and lint setup covers server code
 * only, and these few lines are exercised end to end by the Chromium suites (plugins/auth/test/login-page*).
 * No backtick or dollar-brace may appear in them (they are template literals).
 */

/**
 * The same-origin rule of `safeReturnTo` (domain/return-to.ts), again in the browser: the server already
 * checked what it put in the page, and the callback page receives its `returnTo` from the exchange's answer.
 */
const SAFE_RETURN_TO = `
function safeReturnTo(value) {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048 || value.charAt(0) !== '/') return '/';
  try {
    var target = new URL(value, window.location.origin);
    if (target.origin !== window.location.origin) return '/';
    return target.pathname + target.search + target.hash;
  } catch (error) {
    return '/';
  }
}
`;

/**
 * Submits the password form as JSON to POST /auth/login and goes to the form's `returnTo` on success. One
 * message for every refused sign-in, so the page never tells whether an account exists (README, "Sign-in
 * failures"); 429 says how long to wait, from Retry-After.
 */
export const LOGIN_SCRIPT = `'use strict';
(function () {
${SAFE_RETURN_TO}
  var form = document.getElementById('password-form');
  if (!form) return;
  var message = document.getElementById('password-error');
  var button = form.querySelector('button[type="submit"]');

  function show(text) {
    message.textContent = text;
    message.hidden = false;
  }

  function waitText(retryAfter) {
    var seconds = Number.parseInt(retryAfter || '', 10);
    if (!Number.isFinite(seconds) || seconds <= 0) return 'Too many attempts. Wait a moment, then try again.';
    if (seconds === 1) return 'Too many attempts. Try again in 1 second.';
    if (seconds < 120) return 'Too many attempts. Try again in ' + seconds + ' seconds.';
    return 'Too many attempts. Try again in ' + Math.ceil(seconds / 60) + ' minutes.';
  }

  function failureText(response) {
    if (response.status === 401) return 'Sign-in failed. Check the email address and the password.';
    if (response.status === 429) return waitText(response.headers.get('Retry-After'));
    return 'Sign-in is not possible right now. Try again later.';
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    message.hidden = true;
    button.disabled = true;
    var body = JSON.stringify({ email: form.elements.email.value, password: form.elements.password.value });
    fetch('/auth/login', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: body,
    })
      .then(function (response) {
        if (response.ok) {
          window.location.assign(safeReturnTo(form.dataset.returnTo));
          return;
        }
        show(failureText(response));
        button.disabled = false;
      })
      .catch(function () {
        show('Sign-in is not possible right now. Try again later.');
        button.disabled = false;
      });
  });
})();
`;

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
export const PAGES_CSS = `:root {
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
.note {
  font-size: 0.9rem;
  opacity: 0.8;
}
.error {
  color: #c62828;
}
`;
