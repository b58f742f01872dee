import { createHash, randomBytes } from 'node:crypto';

/**
 * Opaque bearer tokens of the sign-in steps (a pending sign-in, a WebAuthn ceremony): 256 bits from the CSPRNG,
 * handed to the client once; the database keeps only their SHA-256, so a leaked table opens nothing.
 */
export interface OneTimeToken {
  token: string;
  hash: Buffer;
}

export function newOneTimeToken(): OneTimeToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: tokenHash(token) };
}

/** The stored form of a token the client presents. */
export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
