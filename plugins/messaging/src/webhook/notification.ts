import { z } from 'zod';

/**
 * The WhatsApp Cloud API webhook notification (DECISIONS.md, "Provider format", binding): every
 * `entry[]`, every `changes[]`, every `messages[]` and `statuses[]`. Unknown fields are kept (the raw
 * message is stored) and unknown message types are stored with their type; only a notification whose
 * structure is wrong is refused, and then nothing of it is stored.
 */
const digits = z.string().regex(/^\d{1,20}$/, { error: 'must be digits' });
const unixSeconds = z.string().regex(/^\d{1,12}$/, { error: 'must be unix seconds' });

const MessageSchema = z.looseObject({
  id: z.string().min(1).max(200),
  // Phone users have `from`; users with a username and no phone number have `from_user_id` only.
  from: digits.optional(),
  from_user_id: z.string().min(1).max(200).optional(),
  timestamp: unixSeconds,
  type: z.string().min(1).max(40),
  text: z.looseObject({ body: z.string().max(65_536) }).optional(),
  image: z.looseObject({ caption: z.string().max(65_536).optional() }).optional(),
  video: z.looseObject({ caption: z.string().max(65_536).optional() }).optional(),
  document: z
    .looseObject({ caption: z.string().max(65_536).optional(), filename: z.string().optional() })
    .optional(),
  interactive: z
    .looseObject({
      type: z.string(),
      button_reply: z.looseObject({ id: z.string(), title: z.string() }).optional(),
      list_reply: z.looseObject({ id: z.string(), title: z.string() }).optional(),
    })
    .optional(),
  button: z.looseObject({ text: z.string(), payload: z.string().optional() }).optional(),
});

const StatusSchema = z.looseObject({
  id: z.string().min(1).max(200),
  status: z.string().min(1).max(40),
  timestamp: unixSeconds,
  recipient_id: z.string().optional(),
  errors: z.array(z.looseObject({ code: z.number().optional(), title: z.string().optional() })).optional(),
});

const ContactSchema = z.looseObject({
  wa_id: z.string().optional(),
  user_id: z.string().optional(),
  profile: z.looseObject({ name: z.string().max(500).optional() }).optional(),
});

const ValueSchema = z.looseObject({
  messaging_product: z.string().optional(),
  metadata: z.looseObject({ phone_number_id: z.string().min(1).max(100) }),
  contacts: z.array(ContactSchema).optional(),
  messages: z.array(MessageSchema).optional(),
  statuses: z.array(StatusSchema).optional(),
});

export const NotificationSchema = z.looseObject({
  object: z.literal('whatsapp_business_account'),
  entry: z.array(
    z.looseObject({
      id: z.string(),
      changes: z.array(z.looseObject({ field: z.string(), value: z.unknown() })),
    }),
  ),
});

export interface InboundMessage {
  providerMessageId: string;
  phoneNumberId: string;
  /** The sender's number (international digits), or null for a username-only user. */
  from: string | null;
  fromUserId: string | null;
  contactName: string | null;
  type: string;
  /** What the classifier reads: the text, a caption, or an interactive reply's title. */
  text: string | null;
  timestamp: Date;
  raw: Record<string, unknown>;
}

export interface StatusUpdate {
  providerMessageId: string;
  status: string;
  timestamp: Date;
  error: string | null;
}

export type ParseResult =
  | { ok: true; messages: InboundMessage[]; statuses: StatusUpdate[] }
  | { ok: false; issues: Array<{ path: string; message: string }> };

export function parseNotification(body: unknown): ParseResult {
  const issues: Array<{ path: string; message: string }> = [];
  const report = (prefix: string, error: z.ZodError) => {
    for (const issue of error.issues) {
      issues.push({
        path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.'),
        message: issue.message,
      });
    }
  };
  const top = NotificationSchema.safeParse(body);
  if (!top.success) {
    report('body', top.error);
    return { ok: false, issues };
  }
  const messages: InboundMessage[] = [];
  const statuses: StatusUpdate[] = [];
  top.data.entry.forEach((entry, e) => {
    entry.changes.forEach((change, c) => {
      // Other fields (account updates, templates) are not messages; they are acknowledged and ignored.
      if (change.field !== 'messages') return;
      const at = `body.entry.${e}.changes.${c}.value`;
      const value = ValueSchema.safeParse(change.value);
      if (!value.success) return report(at, value.error);
      const { metadata, contacts = [] } = value.data;
      value.data.messages?.forEach((message, m) => {
        if (!message.from && !message.from_user_id) {
          issues.push({ path: `${at}.messages.${m}`, message: 'needs from or from_user_id' });
          return;
        }
        const contact = contacts.find(
          (candidate) =>
            (message.from !== undefined && candidate.wa_id === message.from) ||
            (message.from_user_id !== undefined && candidate.user_id === message.from_user_id),
        );
        messages.push({
          providerMessageId: message.id,
          phoneNumberId: metadata.phone_number_id,
          from: message.from ?? null,
          fromUserId: message.from_user_id ?? null,
          contactName: contact?.profile?.name ?? null,
          type: message.type,
          text: textOf(message),
          timestamp: new Date(Number(message.timestamp) * 1000),
          raw: message,
        });
      });
      for (const status of value.data.statuses ?? []) {
        statuses.push({
          providerMessageId: status.id,
          status: status.status,
          timestamp: new Date(Number(status.timestamp) * 1000),
          error: status.errors?.[0]?.title ?? null,
        });
      }
    });
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, messages, statuses };
}

function textOf(message: z.output<typeof MessageSchema>): string | null {
  switch (message.type) {
    case 'text':
      return message.text?.body ?? null;
    case 'interactive':
      return message.interactive?.button_reply?.title ?? message.interactive?.list_reply?.title ?? null;
    case 'button':
      return message.button?.text ?? null;
    case 'image':
      return message.image?.caption ?? null;
    case 'video':
      return message.video?.caption ?? null;
    case 'document':
      return message.document?.caption ?? null;
    default:
      return null;
  }
}
