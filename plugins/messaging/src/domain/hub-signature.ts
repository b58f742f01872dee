import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)>`: checked only when WEBHOOK_APP_SECRET
 * is set, over the exact bytes received, in constant time (plugins/messaging/README.md, "How a message
 * flows").
 */
export function verifyHubSignature(
  secret: string,
  header: string | undefined,
  rawBody: Buffer | undefined,
): boolean {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret)
    .update(rawBody ?? Buffer.alloc(0))
    .digest();
  return timingSafeEqual(expected, Buffer.from((match[1] as string).toLowerCase(), 'hex'));
}

export function hubSignature(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
