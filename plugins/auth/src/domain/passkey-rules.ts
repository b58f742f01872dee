/**
 * Pure rules of passkeys (README, "Passkeys"): the authenticator's signature counter and the user handle.
 */

/**
 * Whether the counter an assertion presents may follow the one stored. An authenticator increases its counter on
 * every use, so a counter that does not increase means two authenticators hold one private key: a clone. The one
 * exception is a passkey whose counter is always 0 (synced passkeys keep none).
 */
export function counterAdvances(stored: number, presented: number): boolean {
  return presented > stored || (stored === 0 && presented === 0);
}

/**
 * The WebAuthn user handle of an account: its id (a uuid) as its 16 bytes, base64url-encoded. A discoverable
 * credential returns it at sign-in, naming the account it was made for.
 */
export function userHandleOf(userId: string): string {
  return Buffer.from(userId.replaceAll('-', ''), 'hex').toString('base64url');
}

/** The bytes of a user handle, for the registration options. */
export function userHandleBytes(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replaceAll('-', ''), 'hex'));
}

/** A new passkey's name when its owner gave none: "Passkey" and the day it was made. */
export function defaultPasskeyName(now: Date): string {
  return `Passkey ${now.toISOString().slice(0, 10)}`;
}
