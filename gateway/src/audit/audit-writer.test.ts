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
});
