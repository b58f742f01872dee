import { API_REQUESTS, SAFE_RETURN_TO } from './page-script-common.ts';
import { ENROLLMENT_STEP, RECOVERY_CODES_STEP } from './login-script-enrollment.ts';
import { PASSKEY_CEREMONY, USERNAMELESS_PASSKEY } from './login-script-passkeys.ts';

/**
 * Moving between the page's parts: the sign-in methods, or one of the steps after a password. `flow` is the
 * pending sign-in the steps work on (its token and the methods the server offered); `restart` drops it and
 * shows the methods again, with a message when the server said the sign-in is over.
 */
const STEPS = `
var methodsElement = document.getElementById('methods');
var STEP_IDS = ['second-factor-step', 'enrollment-step', 'recovery-codes-step'];
var flow = null;

function enterStep(id) {
  if (methodsElement) methodsElement.hidden = true;
  STEP_IDS.forEach(function (stepId) {
    var step = document.getElementById(stepId);
    if (step) step.hidden = stepId !== id;
  });
}

function restart(text) {
  flow = null;
  STEP_IDS.forEach(function (stepId) {
    var step = document.getElementById(stepId);
    if (step) step.hidden = true;
  });
  if (methodsElement) methodsElement.hidden = false;
  var message = document.getElementById('password-error');
  if (message && text) showText(message, text);
  else if (message) message.hidden = true;
  var password = document.getElementById('password');
  if (password) password.focus();
}

function refused(result, errorElement) {
  // The pending sign-in expired, was used, or took too many wrong codes: only a new password sign-in helps.
  if (problemCode(result) === 'auth.sign_in.expired') restart(problemText(result));
  else showText(errorElement, problemText(result));
}

function finish(answer, returnTo) {
  var target = safeReturnTo(returnTo);
  var codes = answer && Array.isArray(answer.recoveryCodes) ? answer.recoveryCodes : [];
  if (codes.length > 0) showRecoveryCodes(codes, target);
  else window.location.assign(target);
}

Array.prototype.forEach.call(document.querySelectorAll('.start-over'), function (button) {
  button.addEventListener('click', function () {
    restart('');
  });
});
`;

/**
 * The password form, posted as JSON to POST /auth/login. One message for every refused sign-in, so the page
 * never tells whether an account exists (README, "Sign-in failures"); 429 says how long to wait. A correct
 * password either signs in (go to `returnTo`) or opens the second-factor or the enrollment step.
 */
const PASSWORD_STEP = `
var form = document.getElementById('password-form');
var passwordError = document.getElementById('password-error');

function returnTo() {
  return form ? form.dataset.returnTo : '/';
}

function passwordFailureText(result) {
  if (result.status === 401) return 'Sign-in failed. Check the email address and the password.';
  if (result.status === 429) return waitText(result.retryAfter);
  return UNAVAILABLE;
}

if (form) {
  var passwordButton = form.querySelector('button[type="submit"]');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    passwordError.hidden = true;
    passwordButton.disabled = true;
    postJson('/auth/login', { email: form.elements.email.value, password: form.elements.password.value })
      .then(function (result) {
        passwordButton.disabled = false;
        if (!result.ok) {
          showText(passwordError, passwordFailureText(result));
          return;
        }
        var answer = result.data || {};
        if (answer.status === 'second_factor_required') startSecondFactor(answer);
        else if (answer.status === 'second_factor_enrollment_required') startEnrollment(answer);
        else window.location.assign(safeReturnTo(returnTo()));
      })
      .catch(function () {
        showText(passwordError, UNAVAILABLE);
        passwordButton.disabled = false;
      });
  });
}
`;

/**
 * The second step of a password sign-in: a TOTP code, a recovery code, or the account's passkey, each offered
 * only when the server's `methods` says the account has it.
 */
const SECOND_FACTOR_STEP = `
var totpForm = document.getElementById('totp-form');
var recoveryForm = document.getElementById('recovery-code-form');
var factorError = document.getElementById('second-factor-error');
var useTotp = document.getElementById('use-totp');
var useRecoveryCode = document.getElementById('use-recovery-code');
var usePasskey = document.getElementById('use-passkey');

function startSecondFactor(answer) {
  flow = { token: answer.pendingToken, methods: answer.methods || {} };
  enterStep('second-factor-step');
  usePasskey.hidden = flow.methods.passkey !== true;
  // The authenticator app first, else the passkey (its button alone), and a recovery code only when asked for.
  if (flow.methods.totp === true) chooseFactor('totp');
  else chooseFactor(flow.methods.passkey === true || flow.methods.recoveryCode !== true ? 'passkey' : 'recovery');
  // Passkeys turned off since the account made its only factor: nothing here can finish this sign-in.
  if (flow.methods.totp !== true && flow.methods.passkey !== true && flow.methods.recoveryCode !== true)
    showText(factorError, 'None of this account’s second factors can be used here. Ask an administrator to reset them.');
}

function chooseFactor(kind) {
  factorError.hidden = true;
  totpForm.hidden = kind !== 'totp';
  recoveryForm.hidden = kind !== 'recovery';
  usePasskey.classList.toggle('secondary', kind !== 'passkey');
  useTotp.hidden = kind === 'totp' || flow.methods.totp !== true;
  useRecoveryCode.hidden = kind === 'recovery' || flow.methods.recoveryCode !== true;
  var input = kind === 'totp' ? totpForm.elements.code : kind === 'recovery' ? recoveryForm.elements.code : usePasskey;
  input.focus();
}

function sixDigits(input) {
  var code = input.value.trim().replace(/ /g, '');
  return /^[0-9]{6}$/.test(code) ? code : null;
}

function sendCode(formElement, path, code) {
  var button = formElement.querySelector('button[type="submit"]');
  factorError.hidden = true;
  button.disabled = true;
  postJson(path, { pendingToken: flow.token, code: code })
    .then(function (result) {
      button.disabled = false;
      if (result.ok) {
        finish(result.data, returnTo());
        return;
      }
      formElement.elements.code.value = '';
      formElement.elements.code.focus();
      refused(result, factorError);
    })
    .catch(function () {
      button.disabled = false;
      showText(factorError, UNAVAILABLE);
    });
}

if (totpForm) {
  totpForm.addEventListener('submit', function (event) {
    event.preventDefault();
    var code = sixDigits(totpForm.elements.code);
    if (code) sendCode(totpForm, '/api/v1/auth/login/totp', code);
    else showText(factorError, 'Enter the 6-digit code your authenticator app shows.');
  });
  recoveryForm.addEventListener('submit', function (event) {
    event.preventDefault();
    sendCode(recoveryForm, '/api/v1/auth/login/recovery-code', recoveryForm.elements.code.value.trim());
  });
  useTotp.addEventListener('click', function () {
    chooseFactor('totp');
  });
  useRecoveryCode.addEventListener('click', function () {
    chooseFactor('recovery');
  });
  usePasskey.addEventListener('click', function () {
    runPasskey(
      usePasskey,
      factorError,
      function () {
        return passkeyCeremony('sign-in', { pendingToken: flow.token }, {});
      },
      function (answer) {
        finish(answer, returnTo());
      },
    );
  });
}
`;

/**
 * The login page's script (README, "Login pages"): the password form, the steps after it, and passkeys. One
 * closure; the pieces above and in login-script-*.ts share its variables and functions.
 */
export const LOGIN_SCRIPT = `'use strict';
(function () {
${SAFE_RETURN_TO}
${API_REQUESTS}
${STEPS}
${PASSKEY_CEREMONY}
${PASSWORD_STEP}
${SECOND_FACTOR_STEP}
${ENROLLMENT_STEP}
${RECOVERY_CODES_STEP}
${USERNAMELESS_PASSKEY}
})();
`;
