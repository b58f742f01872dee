import { describe, expect, it } from 'vitest';
import { parseWebhookNotification } from './webhook-notification.ts';

function notification(value: Record<string, unknown>): unknown {
  return {
    object: 'whatsapp_business_account',
    entry: [
      { id: '1', changes: [{ field: 'messages', value: { metadata: { phone_number_id: '1' }, ...value } }] },
    ],
  };
}

const message = (i: number) => ({
  id: `wamid.${i}`,
  from: String(6281200000000 + i),
  timestamp: '1700000000',
  type: 'text',
  text: { body: 'halo' },
});
const contact = (i: number, name: string) => ({ wa_id: String(6281200000000 + i), profile: { name } });

describe('parseWebhookNotification', () => {
  it("names each message after the first valid contact entry with its sender's wa_id or user_id", () => {
    const parsed = parseWebhookNotification(
      notification({
        contacts: [
          { wa_id: 42, profile: { name: 'not a contact' } },
          contact(1, 'Budi'),
          contact(1, 'Second Budi'),
          { user_id: 'US.7', profile: { name: 'Username' } },
        ],
        messages: [
          message(1),
          message(2),
          { id: 'wamid.u', from_user_id: 'US.7', timestamp: '1700000000', type: 'text' },
        ],
      }),
    );
    expect(parsed.ok && parsed.messages.map((m) => m.contactName)).toEqual(['Budi', null, 'Username']);
  });

  it('reads a notification of n messages and n contacts in time linear in n', () => {
    const n = 20_000;
    const body = notification({
      contacts: Array.from({ length: n }, (_, i) => contact(i, `Contact ${i}`)),
      messages: Array.from({ length: n }, (_, i) => message(n - 1 - i)),
    });
    parseWebhookNotification(body); // warm-up: compiled code, not a cold start, is what is measured
    const started = performance.now();
    const parsed = parseWebhookNotification(body);
    // About 0.3 s; matching each message against every contact took 3.5 to 6 s at this size.
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(parsed.ok && parsed.messages[0]?.contactName).toBe(`Contact ${n - 1}`);
  });
});
