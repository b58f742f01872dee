import type { Intent } from '../classifier/types.ts';
import type { ChatModel } from '../llm/chat-model.ts';
import { awaitedSlot, expireSession } from './capture/session.ts';
import { createLeadExtractor, type Extraction } from './extract/lead-extractor.ts';
import { HANDLERS } from './handlers/index.ts';
import { nonTextOutcome, readsAsText } from './handlers/media.ts';
import type { HandlerContext, HandlerOutcome } from './handlers/types.ts';
import { detectLanguage } from './language/detect-language.ts';
import { readReplyCatalogue, renderReply, type ReplyCatalogue } from './replies/catalogue.ts';
import type {
  ConversationInput,
  ConversationOutput,
  HandlerResult,
  KbLookupPort,
  Language,
  LeadFields,
  Reply,
} from './types.ts';

/** Intents that may be the answer to "what is your name / email?" (a question is answered instead). */
const ANSWER_INTENTS: ReadonlySet<Intent> = new Set(['generalInfo', 'sharePersonalInfo']);

export interface ConversationEngine {
  /** One inbound message → what the conversation knows now, the handler's result and the replies. */
  step(input: ConversationInput): Promise<ConversationOutput>;
  /** The text of a reply in a language (Indonesian, English fallback). */
  render(reply: Reply, language: Language): string;
}

/**
 * The conversation engine (plugins/messaging/README.md, "Conversations and lead capture"). Pure apart from
 * the model call of the lead extractor: time comes only from `input.now`, state only from the input, and
 * nothing is written; the caller persists the output. The reply catalogue is read and validated here, once,
 * so a bad file fails at boot.
 */
export function createConversationEngine(options: {
  model: ChatModel;
  replies?: ReplyCatalogue;
  /** The published knowledge base the `generalInfo` handler answers from (absent: it is not asked). */
  knowledge?: KbLookupPort;
}): ConversationEngine {
  const catalogue = options.replies ?? readReplyCatalogue();
  const extractor = createLeadExtractor(options.model);

  async function step(input: ConversationInput): Promise<ConversationOutput> {
    const language = detectLanguage(
      readsAsText(input.messageType, input.text) ? input.text : null,
      input.language,
    );
    const { session, expired } = expireSession(input.session, input.now);
    const expiredFlag = expired ? { sessionExpired: true as const } : {};

    if (!readsAsText(input.messageType, input.text)) {
      const outcome = nonTextOutcome(input.messageType, session, input.now);
      return {
        ...output(outcome, { messageType: input.messageType }, {}, language),
        ...expiredFlag,
      };
    }

    const intent = input.classification.intent;
    const awaiting = awaitedSlot(session);
    const extraction = await extractor.extract(input.text, {
      awaiting,
      intent,
      expectName: awaiting === 'name' && ANSWER_INTENTS.has(intent),
    });
    const patch = leadPatch(extraction, input.lead);
    const context: HandlerContext = {
      input,
      session,
      extraction,
      lead: input.lead,
      patch,
      known: { ...input.lead, ...patch },
      now: input.now,
    };
    const routed = route(intent, extraction, awaiting);
    const knowledge =
      routed === 'generalInfo' && options.knowledge
        ? await options.knowledge(input.text, language)
        : undefined;
    const outcome = HANDLERS[routed](knowledge ? { ...context, knowledge } : context);
    // A lead may have no phone; the provider's sender number fills it once capture runs (README, "The capture
    // state machine").
    if (outcome.capturing && !context.known.phone && input.senderPhone) patch.phone = input.senderPhone;
    const entities = {
      ...extraction.fields,
      ...(extraction.by === 'none' ? {} : { extractedBy: extraction.by }),
    };
    return {
      ...output(outcome, entities, patch, language),
      ...expiredFlag,
      ...(knowledge ? { knowledge } : {}),
    };
  }

  return {
    step,
    render: (reply, language) => renderReply(catalogue, reply, language),
  };
}

/**
 * Which handler runs. Asking for a person or to register is honoured as asked; a message that gives lead
 * data goes to `sharePersonalInfo` (which still answers a question asked alongside); while the bot waits
 * for a slot, a reply that is not another question (or a mistyped email) is the answer to the prompt.
 */
function route(intent: Intent, extraction: Extraction, awaiting: 'name' | 'email' | null): Intent {
  if (intent === 'askHuman' || intent === 'wantRegister') return intent;
  if (Object.keys(extraction.fields).length > 0) return 'sharePersonalInfo';
  if (awaiting && (ANSWER_INTENTS.has(intent) || (awaiting === 'email' && extraction.invalidEmail))) {
    return 'sharePersonalInfo';
  }
  return intent;
}

/**
 * What this message changes in the lead. An email or phone the contact writes replaces the stored one (they
 * are unambiguous); a name replaces a stored name only when stated explicitly ("nama saya ..."), never
 * from a loose "saya X", a bare reply or the model.
 */
function leadPatch(extraction: Extraction, lead: LeadFields): LeadFields {
  const { fields, nameSource } = extraction;
  const patch: LeadFields = {};
  if (fields.email && fields.email.toLowerCase() !== lead.email?.toLowerCase()) patch.email = fields.email;
  if (fields.phone && fields.phone !== lead.phone) patch.phone = fields.phone;
  if (fields.name && fields.name !== lead.name && (!lead.name || nameSource === 'phrase'))
    patch.name = fields.name;
  return patch;
}

function output(
  outcome: HandlerOutcome,
  entities: HandlerResult['entities'],
  leadPatch: LeadFields,
  language: Language,
): ConversationOutput {
  const result: HandlerResult = {
    intent: outcome.intent,
    entities,
    ...(outcome.escalation ? { escalation: outcome.escalation } : {}),
    ...(outcome.notifyAdmin ? { notifyAdmin: outcome.notifyAdmin } : {}),
  };
  return { session: outcome.session, result, replies: outcome.replies, leadPatch, language };
}
