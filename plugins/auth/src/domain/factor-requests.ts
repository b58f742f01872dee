import { z } from 'zod';

/** The opaque token of a pending sign-in (domain/one-time-token.ts: 32 bytes, base64url). */
export const pendingTokenSchema = z
  .string()
  .regex(/^[\w-]{43}$/, 'must be the pendingToken the sign-in returned');

/** A TOTP code as typed: six digits, spaces allowed between them. */
const totpCode = z
  .string()
  .max(20)
  .transform((value) => value.replace(/\s+/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'must be the 6-digit code of the authenticator app'));

/** A recovery code as typed (domain/recovery-code.ts reads it); bounded here, read there. */
const recoveryCode = z.string().min(1).max(64);

/** `POST /api/v1/auth/login/totp`. */
export const totpSignInSchema = z.strictObject({ pendingToken: pendingTokenSchema, code: totpCode });

/** `POST /api/v1/auth/login/recovery-code`. */
export const recoveryCodeSignInSchema = z.strictObject({
  pendingToken: pendingTokenSchema,
  code: recoveryCode,
});

/** `POST /api/v1/auth/totp/enroll`: with the session cookie, or the pendingToken of a sign-in that must enroll. */
export const totpEnrollSchema = z.strictObject({ pendingToken: pendingTokenSchema.optional() }).default({});

/** `POST /api/v1/auth/totp/confirm`. */
export const totpConfirmSchema = z.strictObject({
  pendingToken: pendingTokenSchema.optional(),
  code: totpCode,
});

/** `POST /api/v1/auth/step-up`: one factor, a TOTP code or a recovery code. */
export const stepUpSchema = z.union([z.strictObject({ totpCode }), z.strictObject({ recoveryCode })]);
