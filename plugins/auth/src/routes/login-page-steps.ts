/**
 * The steps of /login after a correct password (README, "Login pages"): proving a second factor, enrolling one,
 * and the recovery codes shown once. All hidden in the served markup; the page's script shows the one the
 * sign-in answer asks for. They hold no data from the request: the script fills in what the API answers, as
 * text (and the QR code as parsed SVG nodes, never as markup).
 */
export function secondFactorSteps(): string {
  return [proveStep(), enrollStep(), recoveryCodesStep()].join('\n');
}

/** Six digits, spaces allowed between them (the API strips them): room for "123 456". */
const CODE_INPUT = 'type="text" autocomplete="one-time-code" inputmode="numeric" maxlength="20" required';

function proveStep(): string {
  return `      <section class="method step" id="second-factor-step" hidden>
        <h2>Second factor</h2>
        <form id="totp-form" hidden>
          <label for="totp-code">Code from your authenticator app</label>
          <input id="totp-code" name="code" ${CODE_INPUT}>
          <button type="submit">Verify</button>
        </form>
        <form id="recovery-code-form" hidden>
          <label for="recovery-code">Recovery code</label>
          <input id="recovery-code" name="code" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="64" required>
          <button type="submit">Sign in</button>
        </form>
        <p class="error" id="second-factor-error" role="alert" hidden></p>
        <div class="alternatives">
          <button type="button" class="secondary" id="use-passkey" hidden>Use your passkey</button>
          <button type="button" class="secondary" id="use-recovery-code" hidden>Use a recovery code</button>
          <button type="button" class="secondary" id="use-totp" hidden>Use your authenticator app</button>
          <button type="button" class="secondary start-over">Start over</button>
        </div>
      </section>`;
}

function enrollStep(): string {
  return `      <section class="method step" id="enrollment-step" hidden>
        <h2>Set up a second factor</h2>
        <p>This account needs a second factor before it can sign in.</p>
        <div id="enrollment-choices">
          <button type="button" id="enroll-totp">Set up an authenticator app</button>
          <div id="enroll-passkey-choice" hidden>
            <label for="passkey-name">Name for the passkey</label>
            <input id="passkey-name" type="text" maxlength="100" value="Passkey" required>
            <button type="button" class="secondary" id="enroll-passkey">Create a passkey instead</button>
          </div>
        </div>
        <form id="enroll-totp-form" hidden>
          <p>Scan the QR code with your authenticator app, or type the key into it.</p>
          <div class="qr" id="totp-qr" hidden></div>
          <p>Key: <code class="secret" id="totp-secret"></code></p>
          <p class="note"><a id="totp-uri" hidden>Open in an authenticator app on this device</a></p>
          <label for="enroll-code">Code the app shows</label>
          <input id="enroll-code" name="code" ${CODE_INPUT}>
          <button type="submit">Confirm</button>
        </form>
        <p class="error" id="enrollment-error" role="alert" hidden></p>
        <div class="alternatives">
          <button type="button" class="secondary start-over">Start over</button>
        </div>
      </section>`;
}

function recoveryCodesStep(): string {
  return `      <section class="method step" id="recovery-codes-step" hidden>
        <h2>Save your recovery codes</h2>
        <p>Each code signs you in once if you lose your authenticator app or passkey. They are shown only now:
          keep them somewhere safe, such as a password manager.</p>
        <ol class="codes" id="recovery-code-list"></ol>
        <button type="button" id="recovery-codes-done">I saved them, continue</button>
      </section>`;
}
