import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature } from './signature.ts';

const secret = 'whsec_test-secret';
const body = '{"id":"d-1","type":"verification.status_changed"}';
const t = 1_800_000_000;

describe('webhook signatures', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 keyed by the whole secret text', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signWebhook(secret, body, t)).toBe(`t=${t},v1=${expected}`);
  });

  it('verifies its own signature, from a string or the raw bytes', () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhookSignature(secret, header, body, t)).toBe(true);
    expect(verifyWebhookSignature(secret, header, Buffer.from(body), t + 10)).toBe(true);
  });

  it('refuses another secret, another body and a missing or malformed header', () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhookSignature('whsec_other', header, body, t)).toBe(false);
    expect(verifyWebhookSignature(secret, header, body.replace('d-1', 'd-2'), t)).toBe(false);
    expect(verifyWebhookSignature(secret, undefined, body, t)).toBe(false);
    expect(verifyWebhookSignature(secret, 'v1=abc', body, t)).toBe(false);
    expect(verifyWebhookSignature(secret, header.replace(/,v1=.*/, ''), body, t)).toBe(false);
    expect(verifyWebhookSignature(secret, header.replace(/^t=\d+/, `t=${t + 1}`), body, t)).toBe(false);
  });

  it('refuses a timestamp outside the tolerance, either way', () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhookSignature(secret, header, body, t + 300)).toBe(true);
    expect(verifyWebhookSignature(secret, header, body, t + 301)).toBe(false);
    expect(verifyWebhookSignature(secret, header, body, t - 301)).toBe(false);
    expect(verifyWebhookSignature(secret, header, body, t + 3600, 3600)).toBe(true);
  });

  it('accepts any of several v1 signatures (secret rotation)', () => {
    const old = signWebhook('whsec_old', body, t).split(',')[1];
    const current = signWebhook(secret, body, t);
    expect(verifyWebhookSignature(secret, `${current},${old}`, body, t)).toBe(true);
    expect(verifyWebhookSignature('whsec_old', `${current},${old}`, body, t)).toBe(true);
  });
});
