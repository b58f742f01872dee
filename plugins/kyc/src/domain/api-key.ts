import { hash, randomBytes } from 'node:crypto';

/**
 * The tenants' API keys: how one looks, how it is made, and the hash that is all Gatehouse keeps of it
 * (README, "Keys").
 */

/** Fixed key prefixes (README, "Keys"): a sandbox key visibly differs from a live one. */
export const SANDBOX_PREFIX = 'kyc_sandbox_';
export const LIVE_PREFIX = 'kyc_live_';

/** What a key looks like: its prefix and 32 base64url characters. Anything else is refused before any lookup. */
export const API_KEY_PATTERN = /^kyc_(sandbox|live)_[A-Za-z0-9_-]{32}$/;

export interface NewKey {
  /** Shown once, never stored. */
  key: string;
  hash: Buffer;
  /** Prefix plus four characters: enough for an admin to tell keys apart, useless to an attacker. */
  displayPrefix: string;
}

/** A new key: 192 random bits after the prefix. */
export function generateKey(sandbox: boolean): NewKey {
  const prefix = sandbox ? SANDBOX_PREFIX : LIVE_PREFIX;
  const key = prefix + randomBytes(24).toString('base64url');
  return { key, hash: hashKey(key), displayPrefix: key.slice(0, prefix.length + 4) };
}

/** One-shot SHA-256 (`crypto.hash`): cheaper per call than a Hash object, and this runs on every request. */
export function hashKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}
