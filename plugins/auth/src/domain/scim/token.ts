import { hash, randomBytes } from 'node:crypto';

/**
 * SCIM bearer tokens (README, "SCIM provisioning"): made by `gatehouse scim token create`, shown once, kept only
 * as a SHA-256 hash.
 */
export const SCIM_TOKEN_PREFIX = 'scim_';

/** What a token looks like: the prefix and 43 base64url characters (256 bits). Anything else is refused unread. */
export const SCIM_TOKEN_PATTERN = /^scim_[\w-]{43}$/;

export interface NewScimToken {
  /** Shown once, never stored. */
  token: string;
  hash: Buffer;
  /** The prefix and four characters: enough to tell tokens apart, useless to an attacker. */
  displayPrefix: string;
}

export function generateScimToken(): NewScimToken {
  const token = SCIM_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashScimToken(token), displayPrefix: token.slice(0, SCIM_TOKEN_PREFIX.length + 4) };
}

export function hashScimToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  return header.slice(space + 1).trim();
}
