import { z } from 'zod';
import type { Intent } from '../../classifier/types.ts';
import { ruleText } from '../../domain/text.ts';
import type { ChatMessage, ChatModel } from '../../llm/chat-model.ts';
import type { LeadFields } from '../types.ts';
import { normaliseEmail } from './email.ts';
import { asName } from './name.ts';
import { normalisePhone } from './phone.ts';
import { extractWithRules, type RuleExtraction } from './rules.ts';

/** The model's answer; null is accepted for "not in the message" because models write it often. */
export const ModelLeadSchema = z.object({
  name: z.string().max(200).nullish(),
  email: z.string().max(300).nullish(),
  phone: z.string().max(60).nullish(),
});

export interface Extraction extends RuleExtraction {
  /** Which tier produced the fields: 'model' when the model added at least one. */
  by: 'regex' | 'model' | 'none';
}

export interface ExtractionContext {
  /** The slot the bot has just asked for, if any. */
  awaiting: 'name' | 'email' | null;
  intent: Intent;
  /** A bare reply may be the name (the bot asked for it and the message is an answer, not a question). */
  expectName: boolean;
}

/** Words that announce personal data in a message ("email saya ...", "no hp ...", "my name ..."). */
const PERSONAL_DATA_CUES =
  /@|\d{6,}|(?<![\p{L}])(?:nama|namaku|name|e-?mail|surel|hp|wa|whatsapp|telepon|telp|phone|nomor|nomer|number|panggil|dipanggil|call me)(?![\p{L}])/iu;

const SYSTEM_PROMPT = [
  'You extract the contact details that the sender of a chat message gives about themselves, for a',
  'university admissions desk in Indonesia. Messages are in Indonesian or English.',
  'Answer with one JSON object {"name": string|null, "email": string|null, "phone": string|null}.',
  "Use null for anything the message does not state. Never guess. Only the sender's own details:",
  'not those of a child, a friend or the institution. "name" is the person\'s name only, without titles.',
].join(' ');

/**
 * The lead extractor decides whether regular expressions alone or a language model too read a message
 * (plugins/messaging/README.md, "Extraction"). Regular expressions always run first. The model runs only when
 * they found nothing, or found two candidates for one slot, and the message plausibly carries personal data
 * (the bot is waiting for a slot, the intent is sharePersonalInfo, or the text has an @, a long number or a
 * word such as "nama"/"email"/"nomor"), and only when a model is configured. A plain "saya mau daftar" costs
 * no model call.
 *
 * The model's values go through the same validators as the regular expressions and must appear in the
 * message (an email or a number verbatim, every word of a name), so a model that invents data adds
 * nothing. Any model failure (disabled, timeout, HTTP error, invalid JSON or schema) means "nothing more
 * extracted"; the extractor never throws.
 */
export function createLeadExtractor(model: ChatModel): {
  extract(text: string, context: ExtractionContext): Promise<Extraction>;
} {
  return {
    async extract(fullText, context) {
      // The model sees, and its values are checked against, what the rules read.
      const text = ruleText(fullText);
      const rules = extractWithRules(text, { expectName: context.expectName });
      const found = Object.keys(rules.fields).length > 0;
      const byRules: Extraction = { ...rules, by: found ? 'regex' : 'none' };
      const needsModel = !found || rules.ambiguous.length > 0;
      if (!needsModel || model.model === null || !plausiblyPersonal(text, context)) return byRules;

      const result = await model.completeJson(modelMessages(text, context), ModelLeadSchema);
      if (!result.ok) return byRules;
      const fromModel = checkModelFields(result.value, text);
      const fields: LeadFields = { ...rules.fields };
      let added = false;
      for (const key of ['name', 'email', 'phone'] as const) {
        const value = fromModel[key];
        if (fields[key] === undefined && value !== undefined) {
          fields[key] = value;
          added = true;
        }
      }
      if (!added) return byRules;
      return {
        fields,
        ...(rules.nameSource
          ? { nameSource: rules.nameSource }
          : fields.name
            ? { nameSource: 'model' as const }
            : {}),
        ambiguous: rules.ambiguous.filter((slot) => fields[slot] === undefined),
        invalidEmail: rules.invalidEmail && fields.email === undefined,
        by: 'model',
      };
    },
  };
}

function plausiblyPersonal(text: string, context: ExtractionContext): boolean {
  if (context.awaiting !== null) return true;
  if (context.intent === 'sharePersonalInfo') return true;
  return PERSONAL_DATA_CUES.test(text);
}

function modelMessages(text: string, context: ExtractionContext): ChatMessage[] {
  const asked = context.awaiting
    ? ` The assistant has just asked the sender for their ${context.awaiting}.`
    : '';
  return [
    { role: 'system', content: SYSTEM_PROMPT + asked },
    { role: 'user', content: text },
  ];
}

/** Keeps the model's values that validate and that the message really contains. */
function checkModelFields(value: z.output<typeof ModelLeadSchema>, text: string): LeadFields {
  const fields: LeadFields = {};
  const lowerText = text.toLowerCase();
  if (value.email) {
    const email = normaliseEmail(value.email);
    if (email && lowerText.includes(email.toLowerCase())) fields.email = email;
  }
  if (value.phone) {
    const phone = normalisePhone(value.phone);
    // Compared on digits: "0812-3456-7890" in the text is the model's "+62 812 3456 7890".
    if (phone && text.replace(/\D/g, '').includes(phone.slice(2))) fields.phone = phone;
  }
  if (value.name) {
    const name = asName(value.name);
    const textWords = new Set(lowerText.split(/[^\p{L}\p{M}'’-]+/u));
    const nameWords = (name ?? '').toLowerCase().split(/\s+/);
    if (name && nameWords.every((word) => textWords.has(word.replace(/\.$/u, '')))) fields.name = name;
  }
  return fields;
}
