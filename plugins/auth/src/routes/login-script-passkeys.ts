/**
 * Passkeys on the login page (README, "Login pages"): the WebAuthn ceremony shared by every passkey button
 * (begin on the server, the browser's own dialog, finish on the server) and the usernameless "Sign in with a
 * passkey". The browser turns the server's JSON options into WebAuthn's binary ones and back itself
 * (`parseRequestOptionsFromJSON`, `parseCreationOptionsFromJSON`, `toJSON`); a browser without those says so
 * rather than failing in the middle. Text pasted into the login script's closure (see page-scripts.ts).
 */
export const PASSKEY_CEREMONY = `
var PASSKEYS_UNSUPPORTED = 'This browser cannot use passkeys here. Update it, or sign in another way.';

function passkeysSupported() {
  var api = window.PublicKeyCredential;
  return (
    window.isSecureContext === true &&
    typeof api === 'function' &&
    typeof api.parseRequestOptionsFromJSON === 'function' &&
    typeof api.parseCreationOptionsFromJSON === 'function'
  );
}

function ceremonyFailureText(error) {
  var name = error && error.name;
  if (name === 'NotAllowedError') return 'No passkey was used: the request was cancelled or timed out. Try again, or sign in another way.';
  if (name === 'InvalidStateError') return 'This authenticator already holds a passkey for this account.';
  if (name === 'SecurityError') return 'Passkeys are not set up for this address. Open the sign-in page at the application address.';
  if (name === 'TypeError') return UNAVAILABLE;
  return 'The passkey did not work. Try again, or sign in another way.';
}

function passkeyCeremony(kind, beginBody, finishBody) {
  var base = '/api/v1/auth/passkeys/' + kind;
  return postJson(base + '/begin', beginBody).then(function (begun) {
    if (!begun.ok) return begun;
    var api = window.PublicKeyCredential;
    var asked =
      kind === 'register'
        ? navigator.credentials.create({ publicKey: api.parseCreationOptionsFromJSON(begun.data.options) })
        : navigator.credentials.get({ publicKey: api.parseRequestOptionsFromJSON(begun.data.options) });
    return asked.then(function (credential) {
      if (!credential) throw new DOMException('no credential', 'NotAllowedError');
      var body = { ceremonyToken: begun.data.ceremonyToken, response: credential.toJSON() };
      Object.keys(finishBody).forEach(function (key) {
        body[key] = finishBody[key];
      });
      return postJson(base + '/finish', body);
    });
  });
}

function runPasskey(button, errorElement, ceremony, done) {
  errorElement.hidden = true;
  if (!passkeysSupported()) {
    showText(errorElement, PASSKEYS_UNSUPPORTED);
    return;
  }
  button.disabled = true;
  ceremony()
    .then(function (result) {
      button.disabled = false;
      if (result.ok) done(result.data);
      else refused(result, errorElement);
    })
    .catch(function (error) {
      button.disabled = false;
      showText(errorElement, ceremonyFailureText(error));
    });
}
`;

/** "Sign in with a passkey": no email, no password; the passkey names the account and proves both factors. */
export const USERNAMELESS_PASSKEY = `
var passkeyButton = document.getElementById('passkey-button');
if (passkeyButton) {
  passkeyButton.addEventListener('click', function () {
    runPasskey(
      passkeyButton,
      document.getElementById('passkey-error'),
      function () {
        return passkeyCeremony('sign-in', {}, {});
      },
      function (answer) {
        finish(answer, passkeyButton.dataset.returnTo);
      },
    );
  });
}
`;
