/**
 * WhatsApp Cloud API notifications as the provider sends them, for tests and benchmarks (no imports, so a
 * benchmark can use them without loading the gateway).
 */
export const PHONE_NUMBER_ID = '106540352242922';

let sequence = 0;

/** One inbound text message as the provider sends it. */
export function textMessage(options: {
  from: string;
  text: string;
  id?: string;
  at?: Date;
  name?: string;
  phoneNumberId?: string;
}): Record<string, unknown> {
  sequence++;
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: '15550783881',
                phone_number_id: options.phoneNumberId ?? PHONE_NUMBER_ID,
              },
              contacts: [{ profile: { name: options.name ?? 'Budi' }, wa_id: options.from }],
              messages: [
                {
                  from: options.from,
                  id: options.id ?? `wamid.test.${process.pid}.${sequence}.${Date.now()}`,
                  timestamp: String(Math.floor((options.at ?? new Date()).getTime() / 1000)),
                  type: 'text',
                  text: { body: options.text },
                },
              ],
            },
          },
        ],
      },
    ],
  };
}
