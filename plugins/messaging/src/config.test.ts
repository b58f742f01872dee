import { describe, expect, it } from 'vitest';
import { messagingConfigSchema } from './config.ts';

describe('messaging settings', () => {
  it('keeps a sent reply with its worker for the send timeout plus a minute by default', () => {
    const env = messagingConfigSchema.parse({});
    expect(env).toMatchObject({ MESSAGING_SEND_TIMEOUT_MS: 10_000, MESSAGING_SEND_LEASE_MS: 70_000 });
  });

  it('refuses a send lease that could end while a send is still in flight', () => {
    for (const lease of ['5000', '10000']) {
      const result = messagingConfigSchema.safeParse({
        MESSAGING_SEND_TIMEOUT_MS: '10000',
        MESSAGING_SEND_LEASE_MS: lease,
      });
      expect(result.success).toBe(false);
      expect(result.error?.issues).toMatchObject([
        {
          path: ['MESSAGING_SEND_LEASE_MS'],
          message: 'must be longer than MESSAGING_SEND_TIMEOUT_MS (10000)',
        },
      ]);
    }
    expect(
      messagingConfigSchema.safeParse({ MESSAGING_SEND_TIMEOUT_MS: '1000', MESSAGING_SEND_LEASE_MS: '3000' })
        .success,
    ).toBe(true);
  });
});

describe('MESSAGING_SUMMARY_TIME_ZONE', () => {
  it('is UTC by default and takes IANA zone names', () => {
    expect(messagingConfigSchema.parse({}).MESSAGING_SUMMARY_TIME_ZONE).toBe('UTC');
    for (const zone of ['UTC', 'Asia/Jakarta', 'America/New_York']) {
      expect(
        messagingConfigSchema.parse({ MESSAGING_SUMMARY_TIME_ZONE: zone }).MESSAGING_SUMMARY_TIME_ZONE,
      ).toBe(zone);
    }
  });

  it('refuses what is not a zone name', () => {
    for (const zone of ['', 'Mars/Olympus', 'utc+7', "Asia/Jakarta'; DROP TABLE x"]) {
      const result = messagingConfigSchema.safeParse({ MESSAGING_SUMMARY_TIME_ZONE: zone });
      expect(result.success, zone).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['MESSAGING_SUMMARY_TIME_ZONE']);
    }
  });
});
