/**
 * The one form of a local password, NFKC (README, "Passwords"): what the policy measures and what is
 * hashed and verified, so a password typed with a full-width letter or a ligature matches at sign-in what
 * was stored at registration. Directory passwords are not touched: the directory decides what matches.
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}
