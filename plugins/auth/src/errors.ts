import { defineErrors } from '../../../gateway/src/plugin-api.ts';

/** Every error the auth plugin answers with; each code is documented in ../README.md (a test checks). */
export const authErrors = defineErrors({
  'auth.busy': { status: 503, title: 'Too many sign-ins at once; try again shortly' },
  'auth.rate_limited': { status: 429, title: 'Too many attempts; wait before trying again' },
  'auth.invalid_credentials': { status: 401, title: 'The email or the password is wrong' },
  'auth.session.missing': { status: 401, title: 'No valid session' },
  'auth.origin.mismatch': { status: 403, title: 'The request does not come from the application' },
  'auth.forbidden': { status: 403, title: 'This needs the users:admin role' },
  'auth.user.not_found': { status: 404, title: 'No such user' },
  'auth.role.unknown': { status: 404, title: 'No such role' },
  'auth.register.disabled': { status: 403, title: 'Self-registration is disabled' },
  'auth.register.email_taken': { status: 409, title: 'An account with this email already exists' },
  'auth.password.current_wrong': { status: 403, title: 'The current password is wrong' },
  'auth.password.disabled': {
    status: 403,
    title: 'Passwords are not used for this account in this sign-in mode',
  },
  'auth.password.too_short': { status: 400, title: 'The password is too short' },
  'auth.password.too_long': { status: 400, title: 'The password is too long' },
  'auth.password.common': { status: 400, title: 'The password is one of the most common passwords' },
  'auth.password.contains_email': {
    status: 400,
    title: 'The password contains the name of the email address',
  },
  'auth.oidc.state_invalid': {
    status: 400,
    title: 'No sign-in in progress for this state in this browser: start again',
  },
  'auth.oidc.redirect_uri_not_allowed': {
    status: 400,
    title: 'The redirect URI is not the callback of an allowed app',
  },
  'auth.oidc.code_rejected': { status: 400, title: 'The identity provider refused the authorization code' },
  'auth.oidc.id_token_invalid': { status: 401, title: 'The identity provider’s ID token is not valid' },
  'auth.oidc.provider_unavailable': { status: 502, title: 'The identity provider could not be reached' },
  'auth.oidc.email_missing': {
    status: 403,
    title: 'The identity provider gave no email address, so no account can be made',
  },
  'auth.oidc.email_unverified': {
    status: 403,
    title: 'An account has this email, and the identity provider does not say the email is verified',
  },
  'auth.oidc.identity_conflict': {
    status: 409,
    title: 'The account with this email is linked to another identity at this provider',
  },
  'auth.account.disabled': { status: 403, title: 'This account is disabled' },
  'auth.refresh.invalid': { status: 401, title: 'The refresh token is not valid' },
  'auth.device.not_found': { status: 404, title: 'No such device sign-in' },
  // SCIM provisioning (README, "SCIM provisioning"): answered in SCIM's error document, each with its scimType.
  'auth.scim.unauthorized': { status: 401, title: 'A valid SCIM bearer token is required' },
  'auth.scim.not_found': { status: 404, title: 'No such SCIM resource' },
  'auth.scim.invalid_filter': { status: 400, title: 'The filter is malformed or not supported' },
  'auth.scim.invalid_syntax': { status: 400, title: 'The request is not a SCIM request the gateway reads' },
  'auth.scim.invalid_value': { status: 400, title: 'A value is missing or not valid' },
  'auth.scim.invalid_path': { status: 400, title: 'The PATCH path is malformed' },
  'auth.scim.no_target': { status: 400, title: 'The PATCH operation names no target' },
  'auth.scim.mutability': { status: 400, title: 'The attribute cannot be changed' },
  'auth.scim.uniqueness': { status: 409, title: 'The userName or the email address is taken' },
  // Second factors (README, "Second factors").
  'auth.sign_in.expired': {
    status: 401,
    title: 'This sign-in is no longer waiting for a second factor: sign in again',
  },
  'auth.second_factor.invalid': { status: 401, title: 'The code is wrong or has been used' },
  'auth.second_factor.not_fresh': {
    status: 403,
    title: 'Prove a second factor again first (step-up), then retry',
  },
  'auth.second_factor.enroll_not_allowed': {
    status: 403,
    title: 'This sign-in may not enroll a new factor: use the factor the account has',
  },
  'auth.totp.already_enrolled': {
    status: 409,
    title: 'The account already has an authenticator app; remove it first',
  },
  'auth.totp.not_enrolled': { status: 404, title: 'The account has no authenticator app' },
  'auth.totp.directory_managed': {
    status: 409,
    title: 'The account is managed by a directory; its second factor lives with the identity provider',
  },
  // Passkeys (README, "Passkeys").
  'auth.passkey.unavailable': {
    status: 404,
    title: 'Passkeys are off in this deployment (no WebAuthn relying party resolves)',
  },
  'auth.passkey.invalid': { status: 401, title: 'The passkey could not be verified' },
  'auth.passkey.ceremony_expired': {
    status: 401,
    title: 'This passkey ceremony is unknown, used or expired: begin again',
  },
  'auth.passkey.not_found': { status: 404, title: 'No such passkey' },
  'auth.passkey.already_registered': { status: 409, title: 'This passkey is registered already' },
  'auth.passkey.not_allowed': {
    status: 403,
    title: 'In this sign-in mode passkeys are for break-glass admins only',
  },
  'auth.passkey.directory_managed': {
    status: 409,
    title:
      'The account is managed by a directory; its sign-in and second factor live with the identity provider',
  },
  'auth.recovery_codes.no_factor': {
    status: 409,
    title: 'Recovery codes need a second factor: enroll an authenticator app or a passkey first',
  },
});
