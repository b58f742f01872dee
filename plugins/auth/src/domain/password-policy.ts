import { normalizePassword } from './password.ts';

/** README, "Passwords": the minimum is tuned by an admin but never below 8; at most 256 code points. */
export const PASSWORD_FLOOR = 8;
export const PASSWORD_MAX = 256;

export type PasswordRule =
  | 'auth.password.too_short'
  | 'auth.password.too_long'
  | 'auth.password.common'
  | 'auth.password.contains_email';

export interface PolicyViolation {
  code: PasswordRule;
  message: string;
}

export type PolicyResult = { ok: true; password: string } | { ok: false; violations: PolicyViolation[] };

/**
 * The password policy (README, "Passwords"), applied when a password is set or changed; stored passwords
 * are untouched. The password is NFKC-normalised first (so "ﬁ" and "fi" are one password, and the hash is
 * of the normalised form); lengths count code points, not UTF-16 units. Every broken rule is reported, each
 * with its own code.
 */
export function checkPassword(
  input: { password: string; email: string; minLength: number },
  denylist: ReadonlySet<string>,
): PolicyResult {
  const password = normalizePassword(input.password);
  const length = [...password].length;
  const minimum = Math.max(PASSWORD_FLOOR, input.minLength);
  const violations: PolicyViolation[] = [];
  if (length < minimum)
    violations.push({ code: 'auth.password.too_short', message: `at least ${minimum} characters` });
  if (length > PASSWORD_MAX)
    violations.push({ code: 'auth.password.too_long', message: `at most ${PASSWORD_MAX} characters` });
  const lower = password.toLowerCase();
  if (denylist.has(lower))
    violations.push({ code: 'auth.password.common', message: 'one of the most common passwords' });
  const name = emailName(input.email);
  if (name !== null && lower.includes(name)) {
    violations.push({
      code: 'auth.password.contains_email',
      message: 'may not contain the name of your email address',
    });
  }
  return violations.length === 0 ? { ok: true, password } : { ok: false, violations };
}

/**
 * The part of the address before "@" (and before a "+tag"), lower case. Names shorter than 3 characters
 * are not checked: "al@example.com" would otherwise forbid every password containing "al".
 */
export function emailName(email: string): string | null {
  const local = email.split('@', 1)[0]?.split('+', 1)[0]?.toLowerCase() ?? '';
  return [...local].length >= 3 ? local : null;
}
