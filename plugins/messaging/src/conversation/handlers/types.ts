import type { Intent } from '../../classifier/types.ts';
import type { Extraction } from '../extract/lead-extractor.ts';
import type {
  CaptureSession,
  ConversationInput,
  HandlerResult,
  KbLookup,
  LeadFields,
  Reply,
} from '../types.ts';

/** What a handler sees: the message, the session after the TTL check, and what is known of the lead. */
export interface HandlerContext {
  readonly input: ConversationInput;
  /** The capture session after the 6 h TTL was applied. */
  readonly session: CaptureSession;
  readonly extraction: Extraction;
  /** The lead before this message. */
  readonly lead: LeadFields;
  /** What this message changes in the lead. */
  readonly patch: LeadFields;
  /** The lead after this message (`lead` with `patch` applied). */
  readonly known: LeadFields;
  readonly now: Date;
  /** The knowledge base's answer to the message (only for `generalInfo`, when the engine has a knowledge base). */
  readonly knowledge?: KbLookup;
}

/** What a handler decides; the engine turns it into a HandlerResult and a ConversationOutput. */
export interface HandlerOutcome {
  intent: Intent;
  replies: Reply[];
  session: CaptureSession;
  escalation?: HandlerResult['escalation'];
  notifyAdmin?: HandlerResult['notifyAdmin'];
  /** The handler took part in lead capture (so the sender's phone may fill the lead's). */
  capturing?: boolean;
}

export type Handler = (context: HandlerContext) => HandlerOutcome;
