import { z } from 'zod';
import { isCleanIdentifier } from '../../../../gateway/src/plugin-api.ts';
import { pendingTokenSchema } from './factor-requests.ts';

/** Longest passkey name, in characters (migrations/auth/0007). */
export const PASSKEY_NAME_MAX = 100;

/** A passkey's name as its owner types it: trimmed, 1 to 100 characters, no control characters. */
export const passkeyNameSchema = z
  .string()
  .max(PASSKEY_NAME_MAX * 4)
  .transform((value) => value.trim())
  .refine((value) => value.length > 0, 'must not be empty')
  .refine(
    (value) => Array.from(value).length <= PASSKEY_NAME_MAX,
    `must be at most ${PASSKEY_NAME_MAX} characters`,
  )
  .refine(isCleanIdentifier, 'must not contain control characters');

/** The opaque token of a WebAuthn ceremony (domain/one-time-token.ts: 32 bytes, base64url). */
const ceremonyTokenSchema = z.string().regex(/^[\w-]{43}$/, 'must be the ceremonyToken the begin returned');

/** A base64url value of a WebAuthn response, bounded (the browser's `toJSON()` encodes every buffer so). */
const base64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

/** A credential id: what `auth_passkeys.credential_id` holds. */
const credentialId = base64url(1400).min(1);

/** What both responses share: the credential's id, twice, and its type. */
const credentialFields = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string().max(64), z.unknown()).default({}),
};

/**
 * A `RegistrationResponseJSON` (what `PublicKeyCredential.toJSON()` gives after `navigator.credentials.create`):
 * its shape and sizes are checked here, its contents by the WebAuthn library.
 */
export const registrationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(65_536),
    authenticatorData: base64url(65_536).optional(),
    transports: z.array(z.string().max(32)).max(16).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(8192).optional(),
  }),
});

/** An `AuthenticationResponseJSON` (after `navigator.credentials.get`); the library checks its contents. */
export const authenticationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(8192),
    signature: base64url(8192),
    userHandle: base64url(256).optional(),
  }),
});

/** `POST /api/v1/auth/passkeys/register/begin`: with the session cookie, or a sign-in that must enroll. */
export const passkeyRegisterBeginSchema = z
  .strictObject({ name: passkeyNameSchema.optional(), pendingToken: pendingTokenSchema.optional() })
  .default({});

/** `POST /api/v1/auth/passkeys/register/finish`. */
export const passkeyRegisterFinishSchema = z.strictObject({
  ceremonyToken: ceremonyTokenSchema,
  name: passkeyNameSchema.optional(),
  response: registrationResponseSchema,
});

/**
 * `POST /api/v1/auth/passkeys/sign-in/begin`: usernameless (nothing), the second step of a password sign-in
 * (its pendingToken), or a step-up of the signed-in session.
 */
export const passkeySignInBeginSchema = z
  .union([
    z.strictObject({ pendingToken: pendingTokenSchema }),
    z.strictObject({ stepUp: z.literal(true) }),
    z.strictObject({}),
  ])
  .default({});

/** `POST /api/v1/auth/passkeys/sign-in/finish`. */
export const passkeySignInFinishSchema = z.strictObject({
  ceremonyToken: ceremonyTokenSchema,
  response: authenticationResponseSchema,
});

/** `PATCH /api/v1/auth/passkeys/{id}`. */
export const passkeyRenameSchema = z.strictObject({ name: passkeyNameSchema });

/** The `{id}` of `/api/v1/auth/passkeys/{id}`. */
export const passkeyIdParams = z.object({ id: z.uuid({ error: 'must be a passkey id' }) });
