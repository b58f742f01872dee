import { z } from 'zod';
import { isCleanIdentifier, storableText } from '../../../../gateway/src/plugin-api.ts';
import { storableJson } from './storable-text.ts';

/**
 * The WhatsApp Cloud API webhook notification, the provider's format (README, "How a message flows"): every
 * `entry[]`, every `changes[]`, every `messages[]` and `statuses[]`. Unknown fields are kept (the raw
 * message is stored) and unknown message types are stored with their type.
 *
 * Two levels of checks (README, "Bad bytes in a notification"): a body that is not a notification at all
 * (wrong object, `entry`/`changes`/`messages`/`statuses`/`contacts` not lists) is refused whole; inside
 * one, each message and status update is checked on its own, so one bad item is rejected and reported
 * while the others are stored. Identifiers must be clean text; free text is kept, made storable.
 */

/** Deeper than any message WhatsApp sends (about five levels); the stored copy is made recursively. */
export const MAX_MESSAGE_DEPTH = 32;

const identifier = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine(isCleanIdentifier, { error: 'must not contain control characters or unpaired surrogates' });
const digits = z.string().regex(/^\d{1,20}$/, { error: 'must be digits' });
const unixSeconds = z.string().regex(/^\d{1,12}$/, { error: 'must be unix seconds' });

const MessageSchema = z.looseObject({
  id: identifier(200),
  // Phone users have `from`; users with a username and no phone number have `from_user_id` only.
  from: digits.optional(),
  from_user_id: identifier(200).optional(),
  timestamp: unixSeconds,
  type: identifier(40),
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
  id: identifier(200),
  status: identifier(40),
  timestamp: unixSeconds,
  recipient_id: z.string().optional(),
  errors: z.array(z.looseObject({ code: z.number().optional(), title: z.string().optional() })).optional(),
});

const ContactSchema = z.looseObject({
  wa_id: z.string().optional(),
  user_id: z.string().optional(),
  profile: z.looseObject({ name: z.string().max(500).optional() }).optional(),
});

const PhoneNumberIdSchema = identifier(100);

/** The shape that makes a body a notification; anything inside the lists is checked item by item. */
const ValueSchema = z.looseObject({
  metadata: z.unknown(),
  contacts: z.array(z.unknown()).optional(),
  messages: z.array(z.unknown()).optional(),
  statuses: z.array(z.unknown()).optional(),
});

export const WebhookNotificationSchema = z.looseObject({
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

/** A message or status update left out of a notification, and why. */
export interface Rejection {
  /** Where it is in the body, e.g. `entry.0.changes.0.value.messages.1`. */
  path: string;
  /** Its id as sent (made storable, at most 200 characters), or null when it has no string id. */
  id: string | null;
  reason: string;
}

export type ParseResult =
  | {
      ok: true;
      messages: InboundMessage[];
      statuses: StatusUpdate[];
      /** Every message and status update of the notification, valid or not. */
      received: { messages: number; statuses: number };
      rejected: Rejection[];
    }
  | { ok: false; issues: Array<{ path: string; message: string }> };

type Issues = Array<{ path: string; message: string }>;

function issuesOf(prefix: string, error: z.ZodError): Issues {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.'),
    message: issue.message,
  }));
}

/** "field: problem; ..." for a rejected item (its first three problems); `field` names a lone value. */
function reasonOf(error: z.ZodError, field?: string): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const where = [field, ...issue.path.map(String)].filter(Boolean).join('.');
      return `${where || 'item'}: ${issue.message}`;
    })
    .join('; ');
}

function idOf(item: unknown): string | null {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? storableText(id.slice(0, 200)) : null;
}

/**
 * Reads a notification: `ok: false` with the problems when the body is not one (nothing of it may be
 * stored); else its valid messages and status updates, and the rejected ones with their reasons.
 */
export function parseWebhookNotification(body: unknown): ParseResult {
  const top = WebhookNotificationSchema.safeParse(body);
  if (!top.success) return { ok: false, issues: issuesOf('body', top.error) };
  const issues: Issues = [];
  const result = {
    ok: true as const,
    messages: [] as InboundMessage[],
    statuses: [] as StatusUpdate[],
    received: { messages: 0, statuses: 0 },
    rejected: [] as Rejection[],
  };
  top.data.entry.forEach((entry, e) => {
    entry.changes.forEach((change, c) => {
      // Other fields (account updates, templates) are not messages; they are acknowledged and ignored.
      if (change.field !== 'messages') return;
      const at = `entry.${e}.changes.${c}.value`;
      const value = ValueSchema.safeParse(change.value);
      if (!value.success) return void issues.push(...issuesOf(`body.${at}`, value.error));
      readChange(value.data, at, result);
    });
  });
  return issues.length > 0 ? { ok: false, issues } : result;
}

function readChange(
  value: z.output<typeof ValueSchema>,
  at: string,
  out: Extract<ParseResult, { ok: true }>,
): void {
  const { messages = [], statuses = [], contacts = [] } = value;
  out.received.messages += messages.length;
  out.received.statuses += statuses.length;
  const metadata = value.metadata as { phone_number_id?: unknown } | null | undefined;
  const phoneNumberId = PhoneNumberIdSchema.safeParse(
    typeof metadata === 'object' ? metadata?.phone_number_id : undefined,
  );
  const contactOf = contactIndex(contacts);
  messages.forEach((raw, m) => {
    const path = `${at}.messages.${m}`;
    const reject = (reason: string): void => void out.rejected.push({ path, id: idOf(raw), reason });
    const message = MessageSchema.safeParse(raw);
    if (!message.success) return reject(reasonOf(message.error));
    if (!phoneNumberId.success) return reject(reasonOf(phoneNumberId.error, 'metadata.phone_number_id'));
    const { data } = message;
    if (!data.from && !data.from_user_id) return reject('needs from or from_user_id');
    const stored = storableJson(raw, MAX_MESSAGE_DEPTH);
    if (!stored) return reject(`nested deeper than ${MAX_MESSAGE_DEPTH} levels`);
    const name = contactOf(data.from, data.from_user_id)?.profile?.name;
    const text = textOf(data);
    out.messages.push({
      providerMessageId: data.id,
      phoneNumberId: phoneNumberId.data,
      from: data.from ?? null,
      fromUserId: data.from_user_id ?? null,
      contactName: name === undefined ? null : storableText(name),
      type: data.type,
      text: text === null ? null : storableText(text),
      timestamp: new Date(Number(data.timestamp) * 1000),
      raw: stored.value as Record<string, unknown>,
    });
  });
  statuses.forEach((raw, s) => {
    const status = StatusSchema.safeParse(raw);
    if (!status.success) {
      out.rejected.push({ path: `${at}.statuses.${s}`, id: idOf(raw), reason: reasonOf(status.error) });
      return;
    }
    const title = status.data.errors?.[0]?.title;
    out.statuses.push({
      providerMessageId: status.data.id,
      status: status.data.status,
      timestamp: new Date(Number(status.data.timestamp) * 1000),
      error: title === undefined ? null : storableText(title),
    });
  });
}

type Contact = z.output<typeof ContactSchema>;

/**
 * Finds a message's contact: the first valid entry of `contacts` whose `wa_id` is the sender's `from` or
 * whose `user_id` is its `from_user_id`. Indexed once per change, so a notification of n messages and n
 * contacts costs n lookups, not n × n comparisons.
 */
function contactIndex(
  contacts: readonly unknown[],
): (from: string | undefined, fromUserId: string | undefined) => Contact | undefined {
  const byWaId = new Map<string, number>();
  const byUserId = new Map<string, number>();
  const valid: Array<Contact | undefined> = contacts.map((raw, i) => {
    const contact = ContactSchema.safeParse(raw);
    if (!contact.success) return undefined;
    const { wa_id: waId, user_id: userId } = contact.data;
    if (waId !== undefined && !byWaId.has(waId)) byWaId.set(waId, i);
    if (userId !== undefined && !byUserId.has(userId)) byUserId.set(userId, i);
    return contact.data;
  });
  return (from, fromUserId) => {
    const a = from === undefined ? undefined : byWaId.get(from);
    const b = fromUserId === undefined ? undefined : byUserId.get(fromUserId);
    const first = a === undefined ? b : b === undefined ? a : Math.min(a, b);
    return first === undefined ? undefined : valid[first];
  };
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
