import { createHash, randomInt } from 'node:crypto';

/** How many recovery codes a set has. */
export const RECOVERY_CODE_COUNT = 10;

// Crockford's base32 without the look-alikes: what a person reads from paper and types back.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const GROUP = 5;

/**
 * A set of fresh recovery codes (README, "Recovery codes"): each 10 characters of base32 (50 bits) shown as two
 * groups, `xxxxx-xxxxx`. Only their hashes are stored; 50 bits against a rate-limited endpoint is far beyond
 * guessing, so a fast hash is enough (as for bearer tokens).
 */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let code = '';
    for (let i = 0; i < GROUP * 2; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    return `${code.slice(0, GROUP)}-${code.slice(GROUP)}`;
  });
}

/**
 * The one form of a recovery code as typed: case, spaces and dashes do not matter, and the look-alikes map to the
 * letters they stand for (o → 0, i and l → 1, as Crockford's base32 reads them). Null when it cannot be a code.
 */
export function normaliseRecoveryCode(input: string): string | null {
  const compact = input
    .toLowerCase()
    .replace(/[\s-]+/g, '')
    .replace(/o/g, '0')
    .replace(/[il]/g, '1');
  if (compact.length !== GROUP * 2) return null;
  for (const char of compact) if (!ALPHABET.includes(char)) return null;
  return compact;
}

/** The stored form of a normalised code. */
export function recoveryCodeHash(normalised: string): Buffer {
  return createHash('sha256').update(`gatehouse-recovery:${normalised}`, 'utf8').digest();
}
