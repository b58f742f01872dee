import type { z } from 'zod';
import { encodeCursor } from '../domain/cursor.ts';
import { handoffState } from '../domain/handoff.ts';
import type { ConversationSchema, MessageSchema } from '../domain/inbox-schemas.ts';
import type { MessageRow } from '../store/inbox-message-store.ts';
import type { ConversationRow } from '../store/inbox-store.ts';

export type ConversationView = z.input<typeof ConversationSchema>;
export type MessageView = z.input<typeof MessageSchema>;

/** Cursor kinds (domain/cursor.ts): a cursor of one list never decodes as another's. */
export const INBOX_CURSOR = 'inbox';
export const MESSAGES_CURSOR = 'messages';

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

/** A conversation as the inbox API shows it, with who answers it at `now`. */
export function conversationView(row: ConversationRow, now: Date, idleMs: number): ConversationView {
  const handoff = handoffState(row.agentActiveAt, now, idleMs);
  return {
    id: row.id,
    clusterId: row.clusterId,
    contact: { name: row.contactName, phone: row.contactPhone, userId: row.contactUserId },
    status: row.status,
    assignedTo: row.assignedTo,
    assignedAt: iso(row.assignedAt),
    handler: handoff.handler,
    agentActiveAt: iso(row.agentActiveAt),
    botResumesAt: iso(handoff.botResumesAt),
    unreadCount: row.unreadCount,
    lastActivityAt: row.lastActivityAt.toISOString(),
    lastMessage: row.lastMessageText,
    resolvedAt: iso(row.resolvedAt),
    createdAt: row.createdAt.toISOString(),
  };
}

/** A message as the inbox API shows it: who wrote it is the contact, the bot, or a named agent. */
export function messageView(row: MessageRow): MessageView {
  return {
    id: row.id,
    direction: row.direction,
    type: row.type,
    text: row.text,
    author: messageAuthor(row),
    intent: row.intent,
    tier: row.tier,
    deliveryStatus: row.deliveryStatus,
    processingStatus: row.processingStatus,
    createdAt: row.createdAt.toISOString(),
  };
}

function messageAuthor(row: MessageRow): MessageView['author'] {
  if (row.direction === 'inbound') return { kind: 'contact' };
  return row.authorUserId === null ? { kind: 'bot' } : { kind: 'agent', userId: row.authorUserId };
}

/** The cursor after `row` in the inbox's order. */
export function inboxCursor(row: ConversationRow): string {
  return encodeCursor(INBOX_CURSOR, { us: Number(row.sortUs), id: row.id });
}

/** The cursor at `seq` in one conversation's messages. */
export function messagesCursor(conversationId: string, seq: string | number): string {
  return encodeCursor(MESSAGES_CURSOR, { c: conversationId, s: Number(seq) });
}
