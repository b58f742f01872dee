import type { Clock, Database, Queryable } from '../../../../gateway/src/plugin-api.ts';
import { canonicalEmail, type CanonicalEmail } from '../domain/email.ts';
import { WILDCARD_ROLE } from '../domain/roles.ts';
import { identityStore } from '../store/identity-store.ts';
import { userStore, type UserRow } from '../store/user-store.ts';
import type { IdTokenClaims } from './identity-provider.ts';

/** Why a validated sign-in is refused (README, "Single sign-on", "Linking accounts"). */
export type SignInRefusal =
  | 'email_missing' // no usable email in the ID token: no account can be made
  | 'email_unverified' // an account has this email, and the provider does not say the email is verified
  | 'identity_conflict' // that account is linked to another subject of this issuer
  | 'account_disabled';

export type SignInResult =
  | {
      ok: true;
      user: UserRow;
      /** What happened to the account, for the audit trail. */
      created: boolean;
      linked: boolean;
      bootstrapAdmin: boolean;
    }
  | { ok: false; reason: SignInRefusal; userId: string | null };

/**
 * The account of a validated ID token (README, "Linking accounts"): found by (issuer, subject); else an account
 * with the same email, linked only when the provider says the email is verified; else a new account without
 * roles. A verified BOOTSTRAP_ADMIN_EMAIL makes its account a wildcard admin, once per database. One
 * transaction, so concurrent first sign-ins of one person make one account and one link.
 */
export async function signInWithIdToken(
  deps: { db: Database; clock: Clock; bootstrapAdminEmail: CanonicalEmail | null },
  claims: IdTokenClaims,
): Promise<SignInResult> {
  const now = deps.clock.now();
  const email = claims.email === null ? null : canonicalEmail(claims.email);
  const result = await deps.db.transaction(async (tx): Promise<SignInResult> => {
    const found = await accountOf(tx, claims, email, now);
    if (!found.ok) return found;
    const user = await userStore.findById(tx, found.userId);
    if (!user) throw new Error('a linked account disappeared within its transaction');
    if (user.disabledAt !== null) return { ok: false, reason: 'account_disabled', userId: user.id };
    const bootstrapAdmin =
      claims.emailVerified &&
      email !== null &&
      email === deps.bootstrapAdminEmail &&
      (await userStore.claimBootstrapAdmin(tx, user.id, now)) &&
      (await userStore.grantRole(tx, user.id, WILDCARD_ROLE, 'bootstrap'));
    const current = bootstrapAdmin ? ((await userStore.findById(tx, user.id)) ?? user) : user;
    return { ok: true, user: current, created: found.created, linked: found.linked, bootstrapAdmin };
  });
  if (result.ok) await refreshProfile(deps.db, result.user.id, claims, email);
  return result;
}

type Found =
  | { ok: true; userId: string; created: boolean; linked: boolean }
  | { ok: false; reason: SignInRefusal; userId: string | null };

async function accountOf(
  tx: Queryable,
  claims: IdTokenClaims,
  email: CanonicalEmail | null,
  now: Date,
): Promise<Found> {
  const known = await identityStore.findUser(tx, claims.issuer, claims.subject);
  if (known) {
    await identityStore.touch(tx, claims.issuer, claims.subject, now);
    return { ok: true, userId: known, created: false, linked: false };
  }
  if (email === null) return { ok: false, reason: 'email_missing', userId: null };
  const created = await userStore.insertOidc(tx, email, claims.name);
  const existing = created ?? (await userStore.findByEmail(tx, email))?.id ?? null;
  if (existing === null) throw new Error('the account of an email neither inserted nor found');
  if (created === null && !claims.emailVerified)
    return { ok: false, reason: 'email_unverified', userId: existing };
  if (await identityStore.link(tx, { ...claims, userId: existing, now }))
    return { ok: true, userId: existing, created: created !== null, linked: created === null };
  // Linked meanwhile by a concurrent first sign-in of this identity, or the account has another subject here.
  const raced = await identityStore.findUser(tx, claims.issuer, claims.subject);
  return raced
    ? { ok: true, userId: raced, created: false, linked: false }
    : { ok: false, reason: 'identity_conflict', userId: existing };
}

/**
 * The name from the ID token, and its email when verified and held by no other account; after the sign-in's
 * transaction and best effort: an email taken at that moment by another account leaves the old one.
 */
async function refreshProfile(
  db: Database,
  userId: string,
  claims: IdTokenClaims,
  email: CanonicalEmail | null,
): Promise<void> {
  await userStore
    .updateProfile(db, userId, {
      displayName: claims.name,
      email: claims.emailVerified ? email : null,
    })
    .catch((err: unknown) => {
      if ((err as { code?: string }).code !== '23505') throw err;
    });
}
