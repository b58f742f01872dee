import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { prepareSecrets, signature, signatureHeader, verifySignature } from './hmac.ts';

const secret = 'x'.repeat(32);
const keys = prepareSecrets([secret]);
const request = { method: 'post', url: '/api/v1/leads?x=1', body: Buffer.from('{"a":1}') };

describe('HMAC layer', () => {
  it('signs exactly "<t>.<METHOD>.<path with query>.<raw body>" (the format every dashboard signs)', () => {
    const expected = createHmac('sha256', secret)
      .update('1700000000.POST./api/v1/leads?x=1.{"a":1}')
      .digest('hex');
    expect(signature(secret, 1700000000, request)).toBe(expected);
    expect(signature(secret, 1700000000, { method: 'GET', url: '/x', body: undefined })).toBe(
      createHmac('sha256', secret).update('1700000000.GET./x.').digest('hex'),
    );
  });

  it('classifies failures', () => {
    const now = 1700000000;
    const header = signatureHeader(secret, now, request);
    expect(verifySignature(header, request, keys, now)).toEqual({ ok: true });
    expect(
      verifySignature(header.toUpperCase().replace('T=', 't=').replace('V1=', 'v1='), request, keys, now),
    ).toEqual({ ok: true });
    expect(verifySignature(undefined, request, keys, now)).toEqual({ ok: false, reason: 'missing' });
    expect(verifySignature(['a', 'b'], request, keys, now)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifySignature('t=1,v1=zz', request, keys, now)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifySignature(header, request, keys, now + 301)).toEqual({ ok: false, reason: 'stale' });
    expect(verifySignature(header, { ...request, url: '/api/v1/leads?x=2' }, keys, now)).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifySignature(header, request, prepareSecrets(['y'.repeat(32), secret]), now)).toEqual({
      ok: true,
    });
  });
});
