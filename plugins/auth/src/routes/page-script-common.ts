/**
 * Pieces the login pages' scripts share (README, "Login pages"), pasted into each script's closure. Like every
 * page script they are text (see page-scripts.ts): no backtick, no dollar-brace, and no backslash either (a
 * template literal would swallow it, so regular expressions here avoid escapes).
 */

/**
 * The same-origin rule of `safeReturnTo` (domain/return-to.ts), again in the browser: the server already
 * checked what it put in the page, and the callback page receives its `returnTo` from the exchange's answer.
 */
export const SAFE_RETURN_TO = `
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
 * JSON requests to the sign-in API and the messages of their refusals. A refusal shows the problem's title (the
 * API words it for people); a 429 says how long to wait, from Retry-After; a server error or a network failure
 * shows one generic line. `postJson` resolves with the status and the parsed body (null when there is none).
 */
export const API_REQUESTS = `
var UNAVAILABLE = 'Sign-in is not possible right now. Try again later.';

function waitText(retryAfter) {
  var seconds = Number.parseInt(retryAfter || '', 10);
  if (!Number.isFinite(seconds) || seconds <= 0) return 'Too many attempts. Wait a moment, then try again.';
  if (seconds === 1) return 'Too many attempts. Try again in 1 second.';
  if (seconds < 120) return 'Too many attempts. Try again in ' + seconds + ' seconds.';
  return 'Too many attempts. Try again in ' + Math.ceil(seconds / 60) + ' minutes.';
}

function postJson(path, body) {
  return fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  }).then(function (response) {
    function answer(data) {
      return { ok: response.ok, status: response.status, data: data, retryAfter: response.headers.get('Retry-After') };
    }
    return response.json().then(answer, function () {
      return answer(null);
    });
  });
}

function problemText(result) {
  if (result.status === 429) return waitText(result.retryAfter);
  var title = result.data && typeof result.data.title === 'string' ? result.data.title : '';
  return result.status >= 400 && result.status < 500 && title ? title : UNAVAILABLE;
}

function problemCode(result) {
  return result.data && typeof result.data.code === 'string' ? result.data.code : '';
}

function showText(element, text) {
  element.textContent = text;
  element.hidden = false;
}
`;
