import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'Gatehouse-Signature';
/** How far a signature's timestamp may be from the receiver's clock, by default: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

function hmac(secret: string, timestamp: number, body: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

/**
 * The `Gatehouse-Signature` value for `body` at `timestampSeconds`: HMAC-SHA256, keyed with the whole
 * secret text (`whsec_...`, UTF-8), over `"<t>.<body>"`. The timestamp is signed so that a captured
 * delivery cannot be replayed later than the receiver's tolerance.
 */
export function signWebhook(secret: string, body: string | Uint8Array, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${hmac(secret, timestampSeconds, body).toString('hex')}`;
}

/**
 * What a tenant's receiver does with a delivery (README, "Webhooks"): true when `header` carries a
 * timestamp within `toleranceSeconds` of `nowSeconds` and a `v1` signature that matches `body` (the raw
 * request bytes, before any JSON parsing) under `secret`. Several `v1` entries are allowed (any may
 * match), so a receiver can accept a future rotation. Comparison is constant-time.
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | null | undefined,
  body: string | Uint8Array,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  if (!header) return false;
  let timestamp: number | null = null;
  const candidates: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === null || candidates.length === 0) return false;
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = hmac(secret, timestamp, body);
  // Every candidate is compared, so the time taken does not tell which one matched.
  let ok = false;
  for (const candidate of candidates) ok = timingSafeEqual(candidate, expected) || ok;
  return ok;
}
