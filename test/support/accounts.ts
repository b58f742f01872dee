import { canonicalEmail, type CanonicalEmail } from '../../plugins/auth/src/domain/email.ts';

/** An account email in its canonical form, for tests that write accounts straight into the store. */
export function canonical(address: string): CanonicalEmail {
  const email = canonicalEmail(address);
  if (email === null) throw new Error(`${address} has no canonical form`);
  return email;
}
