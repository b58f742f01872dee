import { z } from 'zod';

declare const canonical: unique symbol;

/** An account email in its one stored form; only `canonicalEmail` makes one. */
export type CanonicalEmail = string & { readonly [canonical]: true };

/** RFC 5321's longest path, and the column's limit (migrations/auth/0001). */
export const EMAIL_MAX = 320;

/** Printable ASCII without space: the only characters a canonical email holds. */
const PRINTABLE_ASCII = /^[!-~]+$/;

/**
 * NFKC, then trimmed and lower-cased: the folding every spelling of an address goes through (what an
 * admin's search folds too). Lower-casing is JavaScript's, which does not depend on a locale.
 */
export function foldEmail(input: string): string {
  return input.normalize('NFKC').trim().toLowerCase();
}

/**
 * The canonical form of an account email (docs/adr/0008-canonical-email.md): `foldEmail`, and then only
 * printable ASCII is accepted. One function for storage, lookup, brute-force limits, LDAP and audit, and SQL
 * compares the stored value exactly, so the account the limiter counts is the account the lookup finds.
 *
 * NFKC folds width and compatibility spellings (`ｖｉｃｔｉｍ`, `K` as the Kelvin sign) into ASCII. What
 * stays outside ASCII afterwards is refused (null): characters whose lower case depends on the language
 * (`İ`, `ı`), lookalikes from other scripts, invisible and control characters. Within ASCII, lower-casing
 * is the same in JavaScript and in every database locale, so no second spelling of one address remains.
 */
export function canonicalEmail(input: string): CanonicalEmail | null {
  const folded = foldEmail(input);
  if (folded.length > EMAIL_MAX || !PRINTABLE_ASCII.test(folded)) return null;
  return folded as CanonicalEmail;
}

const NOT_AN_EMAIL = 'must be an email address';
const address = z.email();

/** A sign-in identifier in its canonical form (login: the directory may accept more than addresses). */
export const signInEmailSchema = z
  .string()
  .max(EMAIL_MAX)
  .transform((value, ctx) => {
    const email = canonicalEmail(value);
    if (email === null) ctx.addIssue({ code: 'custom', message: NOT_AN_EMAIL });
    return email ?? z.NEVER;
  });

/**
 * The email of an account being created (registration, `gatehouse admin create`): canonical, and an
 * address by zod's rule.
 */
export const accountEmailSchema = z
  .string()
  .max(EMAIL_MAX)
  .transform((value, ctx) => {
    const email = canonicalEmail(value);
    if (email === null || !address.safeParse(email).success) {
      ctx.addIssue({ code: 'custom', message: NOT_AN_EMAIL });
      return z.NEVER;
    }
    return email;
  });
