import type { Classification, Intent } from '../classifier/types.ts';

/**
 * The conversation engine's contract (plugins/messaging/README.md, "Conversations and lead capture"): a
 * pure step from (what we know of the conversation, one inbound message, its classification) to (what we
 * know now, the handler's result, the replies to send, the lead fields learned). The processing queue
 * calls it inside the transaction of the message's batch and persists what it returns.
 */

/** Lead capture: awaiting_name → awaiting_email → captured, for 6 h (README, "The capture state machine"). */
export type CaptureState = 'idle' | 'awaiting_name' | 'awaiting_email' | 'captured';

export interface CaptureSession {
  state: CaptureState;
  /** When the current capture session started (ISO-8601), null when idle. */
  startedAt: string | null;
  /** Last inbound message of the session (ISO-8601); the 6 h TTL runs from here. */
  lastActivityAt: string | null;
  /** Slots already re-asked once after invalid input (the bot re-asks politely once, never loops). */
  reasked: { name: boolean; email: boolean };
}

export interface LeadFields {
  name?: string;
  email?: string;
  /** Normalised to the 62-prefixed form (628123456789). */
  phone?: string;
}

/** What a handler decided for one message: the intent it handled, the entities, escalations to raise. */
export interface HandlerResult {
  intent: Intent;
  entities: LeadFields & Record<string, unknown>;
  escalation?: { reason: string; eventKey: string };
  notifyAdmin?: { eventKey: string; message: string };
}

/** A reply to send: a template id with its parameters; the language picks the text. */
export interface Reply {
  template: string;
  params: Record<string, string>;
}

export type Language = 'id' | 'en';

/**
 * What the knowledge base gave a `generalInfo` message (README, "Knowledge base", "How the bot answers"): the
 * answer when the best chunk passed the threshold (null: the default answer), the chunks found with their
 * scores (best first), and the KB version searched.
 */
export interface KbLookup {
  answer: string | null;
  chunks: Array<{ id: string; score: number }>;
  kbVersion: number;
}

/** Looks a question up in the published knowledge base, in the conversation's language. */
export type KbLookupPort = (text: string, language: Language) => Promise<KbLookup>;

export interface ConversationInput {
  text: string | null;
  /** The provider's message type (text, image, audio, document, location, interactive, ...). */
  messageType: string;
  classification: Classification;
  session: CaptureSession;
  /** What the lead already has (so the bot never asks for a name twice). */
  lead: LeadFields;
  /**
   * The sender's phone from the provider (`from`), 62-normalised by the extractors' `normalisePhone`; null for
   * username-only users and for numbers that are not Indonesian mobiles.
   */
  senderPhone: string | null;
  /** Default-tier answers in a row before this message (an escalation rule reads it). */
  defaultAnswersInARow: number;
  now: Date;
  /**
   * The conversation's language so far (the previous output's `language`). A message without language
   * cues (a bare name, an email) keeps it; absent → Indonesian.
   */
  language?: Language;
}

export interface ConversationOutput {
  session: CaptureSession;
  result: HandlerResult;
  replies: Reply[];
  /** Fields to merge into the lead (only what this message taught us). */
  leadPatch: LeadFields;
  language: Language;
  /** True when this message found the capture session past its 6 h TTL and reset it (for logs). */
  sessionExpired?: boolean;
  /** The knowledge-base lookup of a `generalInfo` message (absent: none was made). */
  knowledge?: KbLookup;
}
