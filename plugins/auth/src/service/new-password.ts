import type { Database } from '../../../../gateway/src/plugin-api.ts';
import { authErrors } from '../errors.ts';
import { checkPassword, type PolicyResult, type PolicyViolation } from '../domain/password-policy.ts';
import { userStore } from '../store/user-store.ts';
import type { PasswordHasher } from './password-hasher.ts';

/** A policy violation as the 400 it is: the first rule's code, every broken rule listed (README, "Passwords"). */
function policyError(violations: readonly PolicyViolation[]) {
  const [first, ...rest] = violations;
  if (!first) throw new Error('policyError needs at least one violation');
  return authErrors.create(first.code, {
    detail: [first, ...rest].map((v) => v.message).join('; '),
    extensions: { violations: violations.map((v) => v.code) },
  });
}

/**
 * The password policy for a password being set, with the minimum length an admin set now (README,
 * "Passwords"): what registration, password change and `gatehouse admin create` check.
 */
export async function checkNewPassword(
  db: Database,
  denylist: ReadonlySet<string>,
  input: { password: string; email: string },
): Promise<PolicyResult> {
  const minLength = await userStore.passwordMinLength(db.pool);
  return checkPassword({ ...input, minLength }, denylist);
}

/**
 * Setting a password (registration, password change): the policy with the admin's current minimum, then
 * the argon2id hash of the NFKC-normalised password. A violation throws the 400.
 */
export function createNewPasswordHasher(deps: {
  db: Database;
  hasher: PasswordHasher;
  denylist: ReadonlySet<string>;
}) {
  return async (password: string, email: string): Promise<string> => {
    const policy = await checkNewPassword(deps.db, deps.denylist, { password, email });
    if (!policy.ok) throw policyError(policy.violations);
    return deps.hasher.hash(policy.password);
  };
}
