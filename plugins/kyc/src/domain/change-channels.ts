/**
 * The NOTIFY channels by which one process tells every replica (and the CLI tells running gateways) that
 * something they cache changed. The store sends on them inside the changing transaction, so the message
 * goes out on commit; the services LISTEN and drop their cached copies.
 */

/** A verification changed status; the payload is its id. Sent by every transition. */
export const VERIFICATION_CHANNEL = 'kyc_verification_changed';

/** An API key (payload `key:<id>`) or a whole tenant (`tenant:<id>`) changed. */
export const KEY_CHANNEL = 'kyc_keys_changed';

/** What a message on KEY_CHANNEL is about. */
export type KeyChange = { keyId: string } | { tenantId: string };

/** The KEY_CHANNEL payload for a change. */
export function keyChangePayload(target: KeyChange): string {
  return 'keyId' in target ? `key:${target.keyId}` : `tenant:${target.tenantId}`;
}

/** Reads a KEY_CHANNEL payload; an unknown one names nothing. */
export function parseKeyChange(payload: string): { keyId?: string; tenantId?: string } {
  const [kind, id] = payload.split(':');
  if (kind === 'key' && id) return { keyId: id };
  if (kind === 'tenant' && id) return { tenantId: id };
  return {};
}
