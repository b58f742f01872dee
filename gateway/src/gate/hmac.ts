import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * Layer 1, the internal-secret HMAC, a format the dashboards sign and must not change
 * (docs/api-auth-gate.md, "Signing requests from a dashboard"):
 *
 *   X-Internal-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<METHOD>.<path with query>.<raw body>")>
 *
 * ±300 s tolerance; compared in constant time; any of the configured secrets (two during rotation) may
 * match. The reason a check failed goes to audit and metrics, never to the client.
 */
export const SIGNATURE_HEADER = 'x-internal-signature';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type HmacFailure = 'missing' | 'malformed' | 'stale' | 'mismatch';
export type HmacResult = { ok: true } | { ok: false; reason: HmacFailure };

const HEADER_PATTERN = /^t=(\d{1,12}),v1=([0-9a-fA-F]{64})$/;

export interface SignedRequest {
  method: string;
  /** Path with query string, exactly as sent on the request line. */
  url: string;
  body: Buffer | undefined;
}

/** Computes `v1` for a request; what a dashboard does before sending (see docs/api-auth-gate.md). */
export function signature(secret: string, timestamp: number, request: SignedRequest): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.${request.method.toUpperCase()}.${request.url}.`);
  if (request.body && request.body.length > 0) hmac.update(request.body);
  return hmac.digest('hex');
}

/** The header value for a request signed now. */
export function signatureHeader(secret: string, nowSeconds: number, request: SignedRequest): string {
  return `t=${nowSeconds},v1=${signature(secret, nowSeconds, request)}`;
}

/** The configured secrets as KeyObjects, made once: createHmac then skips importing the key per call. */
export function prepareSecrets(secrets: readonly string[]): readonly KeyObject[] {
  return secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
}

export function verifySignature(
  header: string | string[] | undefined,
  request: SignedRequest,
  keys: readonly KeyObject[],
  nowSeconds: number,
): HmacResult {
  if (header === undefined || header === '') return { ok: false, reason: 'missing' };
  const match = typeof header === 'string' ? HEADER_PATTERN.exec(header.trim()) : null;
  if (!match) return { ok: false, reason: 'malformed' };
  const timestamp = Number(match[1]);
  if (Math.abs(nowSeconds - timestamp) > SIGNATURE_TOLERANCE_SECONDS) return { ok: false, reason: 'stale' };
  const given = Buffer.from((match[2] as string).toLowerCase(), 'hex');
  const signed = `${timestamp}.${request.method.toUpperCase()}.${request.url}.`;
  // Every secret is tried, whichever matches: the time taken does not reveal which one did.
  let matched = false;
  for (const key of keys) {
    const hmac = createHmac('sha256', key).update(signed);
    if (request.body && request.body.length > 0) hmac.update(request.body);
    const expected = hmac.digest();
    if (timingSafeEqual(expected, given)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'mismatch' };
}
