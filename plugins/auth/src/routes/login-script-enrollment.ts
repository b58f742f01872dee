/**
 * Enrollment at sign-in (README, "Login pages"): an account that must have a second factor before its first
 * session sets up an authenticator app (QR code, the key as text, a first code) or creates a passkey, with the
 * pending sign-in's token; either ends signed in, with the first recovery codes shown once. Text pasted into
 * the login script's closure (see page-scripts.ts).
 */
export const ENROLLMENT_STEP = `
var enrollmentError = document.getElementById('enrollment-error');
var enrollmentChoices = document.getElementById('enrollment-choices');
var enrollTotp = document.getElementById('enroll-totp');
var enrollTotpForm = document.getElementById('enroll-totp-form');
var enrollPasskeyChoice = document.getElementById('enroll-passkey-choice');
var enrollPasskey = document.getElementById('enroll-passkey');

function startEnrollment(answer) {
  flow = { token: answer.pendingToken, methods: answer.methods || {} };
  enterStep('enrollment-step');
  enrollmentError.hidden = true;
  enrollmentChoices.hidden = false;
  enrollTotpForm.hidden = true;
  enrollPasskeyChoice.hidden = flow.methods.passkey !== true;
  enrollTotp.focus();
}

// The QR code arrives as an SVG document. It is parsed (never inserted as markup) and adopted only when it holds
// nothing but the elements and attributes a QR code is drawn with, so nothing in it can run or load anything, and
// the page's CSP needs no img-src for it. When it cannot be shown, the key below it still can be typed.
var SVG_NS = 'http://www.w3.org/2000/svg';
var QR_ATTRIBUTES = {
  svg: ['xmlns', 'viewBox', 'width', 'height', 'fill'],
  rect: ['x', 'y', 'width', 'height', 'fill'],
  path: ['d', 'fill'],
};

function qrCodeNode(svgText) {
  if (typeof svgText !== 'string') return null;
  var root = new DOMParser().parseFromString(svgText, 'image/svg+xml').documentElement;
  if (!root || root.namespaceURI !== SVG_NS || root.localName !== 'svg') return null;
  var elements = [root].concat(Array.prototype.slice.call(root.querySelectorAll('*')));
  for (var index = 0; index < elements.length; index++) {
    var element = elements[index];
    var allowed = Object.prototype.hasOwnProperty.call(QR_ATTRIBUTES, element.localName)
      ? QR_ATTRIBUTES[element.localName]
      : null;
    if (element.namespaceURI !== SVG_NS || !allowed) return null;
    if (element.getAttributeNames().some(function (name) { return allowed.indexOf(name) < 0; })) return null;
  }
  root.setAttribute('role', 'img');
  root.setAttribute('aria-label', 'QR code to scan with your authenticator app');
  return document.importNode(root, true);
}

function showTotpEnrollment(shown) {
  var qr = document.getElementById('totp-qr');
  var node = qrCodeNode(shown.qrCodeSvg);
  qr.replaceChildren();
  if (node) qr.appendChild(node);
  qr.hidden = !node;
  // In groups of four, as authenticator apps show keys; they ignore the spaces.
  var secret = typeof shown.secret === 'string' ? shown.secret : '';
  document.getElementById('totp-secret').textContent = (secret.match(/.{1,4}/g) || []).join(' ');
  var link = document.getElementById('totp-uri');
  var uri = typeof shown.otpauthUri === 'string' && shown.otpauthUri.indexOf('otpauth://totp/') === 0;
  if (uri) link.href = shown.otpauthUri;
  link.hidden = !uri;
  enrollmentChoices.hidden = true;
  enrollTotpForm.hidden = false;
  enrollTotpForm.elements.code.focus();
}

if (enrollTotp) {
  enrollTotp.addEventListener('click', function () {
    enrollmentError.hidden = true;
    enrollTotp.disabled = true;
    postJson('/api/v1/auth/totp/enroll', { pendingToken: flow.token })
      .then(function (result) {
        enrollTotp.disabled = false;
        if (result.ok) showTotpEnrollment(result.data || {});
        else refused(result, enrollmentError);
      })
      .catch(function () {
        enrollTotp.disabled = false;
        showText(enrollmentError, UNAVAILABLE);
      });
  });

  enrollTotpForm.addEventListener('submit', function (event) {
    event.preventDefault();
    var code = sixDigits(enrollTotpForm.elements.code);
    if (!code) {
      showText(enrollmentError, 'Enter the 6-digit code your authenticator app shows.');
      return;
    }
    var button = enrollTotpForm.querySelector('button[type="submit"]');
    enrollmentError.hidden = true;
    button.disabled = true;
    postJson('/api/v1/auth/totp/confirm', { pendingToken: flow.token, code: code })
      .then(function (result) {
        button.disabled = false;
        if (result.ok) {
          finish(result.data, returnTo());
          return;
        }
        enrollTotpForm.elements.code.value = '';
        enrollTotpForm.elements.code.focus();
        refused(result, enrollmentError);
      })
      .catch(function () {
        button.disabled = false;
        showText(enrollmentError, UNAVAILABLE);
      });
  });

  enrollPasskey.addEventListener('click', function () {
    var name = document.getElementById('passkey-name').value.trim();
    if (!name) {
      showText(enrollmentError, 'Give the passkey a name, such as the device it is on.');
      return;
    }
    runPasskey(
      enrollPasskey,
      enrollmentError,
      function () {
        return passkeyCeremony('register', { pendingToken: flow.token, name: name }, { name: name });
      },
      function (answer) {
        finish(answer, returnTo());
      },
    );
  });
}
`;

/**
 * The first recovery codes, shown once after an enrollment signed the account in (the session is already
 * set): the page goes on to `returnTo` only when the user says they saved them.
 */
export const RECOVERY_CODES_STEP = `
var afterRecoveryCodes = '/';

function showRecoveryCodes(codes, target) {
  var list = document.getElementById('recovery-code-list');
  if (!list) {
    window.location.assign(target);
    return;
  }
  list.replaceChildren();
  codes.forEach(function (code) {
    var item = document.createElement('li');
    var text = document.createElement('code');
    text.textContent = String(code);
    item.appendChild(text);
    list.appendChild(item);
  });
  afterRecoveryCodes = target;
  enterStep('recovery-codes-step');
  document.getElementById('recovery-codes-done').focus();
}

var recoveryCodesDone = document.getElementById('recovery-codes-done');
if (recoveryCodesDone) {
  recoveryCodesDone.addEventListener('click', function () {
    window.location.assign(afterRecoveryCodes);
  });
}
`;
