import { z } from 'zod';

/**
 * The payload of each event type (README, "Events"), as the triggers in migrations/realtime build them.
 * The JSON Schemas clients can validate against are generated from these (`eventJsonSchemas`) and published
 * in plugins/realtime/data/event-schemas.json; a test holds the file, the triggers and these to each other.
 * Timestamps are UTC, ISO 8601 with milliseconds and `Z`.
 */
const utc = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const uuid = z.uuid();

const message = z.strictObject({
  messageId: uuid,
  conversationId: uuid,
  direction: z.enum(['inbound', 'outbound']),
  type: z.string(),
  text: z.string().nullable(),
  processingStatus: z.enum(['queued', 'processed', 'dead']).nullable(),
  intent: z.string().nullable(),
  deliveryStatus: z.enum(['pending', 'sent', 'delivered', 'read', 'failed']).nullable(),
  providerTimestamp: utc.nullable(),
  createdAt: utc,
});

const conversation = z.strictObject({
  conversationId: uuid,
  clusterId: uuid.nullable(),
  phoneNumberId: z.string(),
  contactPhone: z.string().nullable(),
  contactUserId: z.string().nullable(),
  contactName: z.string().nullable(),
  language: z.enum(['id', 'en']),
  captureState: z.enum(['idle', 'awaiting_name', 'awaiting_email', 'captured']).nullable(),
  status: z.enum(['open', 'pending', 'resolved']),
  assignedTo: z.string().nullable(),
  /** Set while an agent holds the conversation and the bot stays silent. */
  agentActiveAt: utc.nullable(),
  createdAt: utc,
  updatedAt: utc,
});

const lead = z.strictObject({
  leadId: uuid,
  /** Null for a lead staff created by hand. */
  conversationId: uuid.nullable(),
  clusterId: uuid.nullable(),
  source: z.enum(['whatsapp', 'manual']),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  /** The effective status: the override when staff set one, else the computed status. */
  status: z.enum(['incomplete', 'captured', 'qualified', 'contacted', 'converted', 'disqualified']),
  computedStatus: z.enum(['incomplete', 'captured', 'qualified']),
  statusOverride: z
    .enum(['incomplete', 'captured', 'qualified', 'contacted', 'converted', 'disqualified'])
    .nullable(),
  version: z.int().min(1),
  createdAt: utc,
  updatedAt: utc,
  capturedAt: utc.nullable(),
});

const notification = z.strictObject({
  notificationId: uuid,
  userId: z.string(),
  kind: z.string(),
  eventKey: z.string(),
  conversationId: uuid.nullable(),
  details: z.record(z.string(), z.unknown()),
  createdAt: utc,
  readAt: utc.nullable(),
});

const followup = z.strictObject({
  followupId: z.union([uuid, z.string(), z.number()]),
  conversationId: uuid,
  ruleId: z.union([z.string(), z.number()]).nullable(),
  status: z.string().nullable(),
  dueAt: utc.nullable(),
});

/** Every event type, with its payload schema and the rooms it goes to. */
export const EVENT_TYPES = {
  'message.created': { payload: message, rooms: 'conversation:, cluster:' },
  'message.updated': { payload: message, rooms: 'conversation:, cluster:' },
  'conversation.created': { payload: conversation, rooms: 'conversation:, cluster:' },
  'conversation.updated': {
    payload: conversation,
    rooms: 'conversation:, cluster: (and the cluster it left)',
  },
  'lead.upserted': { payload: lead, rooms: 'conversation:, cluster:, global:leads' },
  'notification.created': { payload: notification, rooms: 'user:' },
  'notification.updated': { payload: notification, rooms: 'user:' },
  'followup.scheduled': { payload: followup, rooms: 'conversation:, cluster:' },
  'followup.updated': { payload: followup, rooms: 'conversation:, cluster:' },
} as const;

export type EventType = keyof typeof EVENT_TYPES;

/** The JSON Schema (draft 2020-12) of each type's payload, keyed by type. */
export function eventJsonSchemas(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(EVENT_TYPES).map(([type, spec]) => [type, z.toJSONSchema(spec.payload)]),
  );
}
