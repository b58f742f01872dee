import { z } from 'zod';
import { accountEmailSchema, EMAIL_MAX, signInEmailSchema } from './email.ts';
import { PASSWORD_FLOOR, PASSWORD_MAX } from './password-policy.ts';

/**
 * A password as a request carries it. Bounded so nobody makes the server hash megabytes; the policy's
 * limit of 256 applies when a password is set (domain/password-policy.ts), not to what is compared.
 */
const passwordInput = z.string().min(1).max(1024);

/** `POST /auth/login`. */
export const credentialsSchema = z.object({
  // Canonical (domain/email.ts): the limiter's key, the lookup and the directory's filter are one value.
  email: signInEmailSchema,
  password: passwordInput,
});

/** `POST /auth/register`. */
export const registrationSchema = z.object({
  email: accountEmailSchema,
  password: passwordInput,
});

/** `POST /api/v1/auth/password`. */
export const passwordChangeSchema = z.object({
  currentPassword: passwordInput,
  newPassword: passwordInput,
});

/** The `{id}` of `/api/v1/admin/users/{id}`. */
export const userIdParams = z.object({ id: z.uuid({ error: 'must be a user id' }) });

/** The `{id}` and `{role}` of `/api/v1/admin/users/{id}/roles/{role}`. */
export const userRoleParams = z.object({
  id: z.uuid({ error: 'must be a user id' }),
  role: z.string().min(1).max(100),
});

/** `GET /api/v1/admin/users?search=&limit=&offset=`: `search` is part of an email. */
export const userSearchQuery = z.object({
  search: z.string().max(EMAIL_MAX).default(''),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** `PATCH /api/v1/admin/settings`: at least one of the settings. */
export const settingsPatchSchema = z
  .strictObject({
    registrationEnabled: z.boolean().optional(),
    // README, "Passwords": tuned by an admin, never below the floor of 8.
    passwordMinLength: z
      .number()
      .int()
      .min(PASSWORD_FLOOR, `the floor is ${PASSWORD_FLOOR}`)
      .max(PASSWORD_MAX)
      .optional(),
    requireTotp: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'nothing to change');
