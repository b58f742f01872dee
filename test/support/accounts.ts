import argon2 from 'argon2';
import { canonicalEmail, type CanonicalEmail } from '../../plugins/auth/src/domain/email.ts';
import { ARGON2_PARAMS } from '../../plugins/auth/src/service/password-hasher.ts';
import { userStore } from '../../plugins/auth/src/store/user-store.ts';
import type { Queryable } from '../../gateway/src/plugin-api.ts';

/** An account email in its canonical form, for tests that write accounts straight into the store. */
export function canonical(address: string): CanonicalEmail {
  const email = canonicalEmail(address);
  if (email === null) throw new Error(`${address} has no canonical form`);
  return email;
}

/**
 * A local account written straight into the auth plugin's store (password hashed with the gateway's
 * parameters), with its roles; its id. For suites outside the auth plugin that sign in over HTTP.
 */
export async function seedLocalAccount(
  db: Queryable,
  account: { email: string; password: string; roles?: readonly string[] },
): Promise<string> {
  const user = await userStore.insertLocal(
    db,
    canonical(account.email),
    await argon2.hash(account.password, ARGON2_PARAMS),
  );
  if (!user) throw new Error(`${account.email} exists already`);
  for (const role of account.roles ?? []) {
    await db.query('INSERT INTO auth_roles (name) VALUES ($1) ON CONFLICT DO NOTHING', [role]);
    await userStore.grantRole(db, user.id, role, 'test');
  }
  return user.id;
}
