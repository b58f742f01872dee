import { describe, expect, it } from 'vitest';
import { scrubPayload } from './audit-writer.ts';

describe('scrubPayload', () => {
  it('redacts keys named after secrets, at any depth, and keeps settings that merely mention them', () => {
    expect(
      scrubPayload({
        password: 'x',
        newPassword: 'x',
        accessToken: 'x',
        apiKey: 'x',
        api_key: 'x',
        clientSecret: 'x',
        totpCode: 'x',
        nested: [{ refresh_token: 'x', cookie: 'x' }],
        passwordMinLength: 12,
        tokenCount: 3,
        reason: 'wrong_password',
      }),
    ).toEqual({
      password: '[redacted]',
      newPassword: '[redacted]',
      accessToken: '[redacted]',
      apiKey: '[redacted]',
      api_key: '[redacted]',
      clientSecret: '[redacted]',
      totpCode: '[redacted]',
      nested: [{ refresh_token: '[redacted]', cookie: '[redacted]' }],
      passwordMinLength: 12,
      tokenCount: 3,
      reason: 'wrong_password',
    });
  });

  it('makes every string and key storable, so no row is lost to a NUL or an unpaired surrogate', () => {
    expect(scrubPayload({ 'k\u0000': ['v\ud800', { deep: 'a\u0000' }], n: 1 })).toEqual({
      'k\ufffd': ['v\ufffd', { deep: 'a\ufffd' }],
      n: 1,
    });
  });

  it('keeps nothing nested deeper than 8 levels', () => {
    let deep: unknown = 'x\u0000';
    for (let level = 0; level < 12; level++) deep = { deep };
    expect(JSON.stringify(scrubPayload(deep))).toContain('"[nested too deep]"');
  });
});
