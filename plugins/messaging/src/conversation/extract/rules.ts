import { ruleText } from '../../domain/text.ts';
import type { LeadFields } from '../types.ts';
import { scanEmails } from './email.ts';
import { extractName, type NameSource } from './name.ts';
import { scanPhones } from './phone.ts';

/** What the regular-expression extractors found in one message. */
export interface RuleExtraction {
  fields: LeadFields;
  nameSource?: NameSource;
  /** Slots with more than one distinct candidate (left out of `fields`; the model may pick one). */
  ambiguous: Array<'email' | 'phone'>;
  /** Something with an `@` that is not a valid email (for re-asking when the bot waits for one). */
  invalidEmail: boolean;
}

/**
 * The regular-expression tier of lead extraction (README, "Extraction"): emails first, then
 * phone numbers in what remains, then a name in what remains after both (so "budi@example.com" never
 * reads as a name and "nama saya Budi, 0812..." stops at the number). Only the first RULE_TEXT_MAX_CHARS
 * characters are read; every step is linear in them.
 */
export function extractWithRules(text: string, options: { expectName: boolean }): RuleExtraction {
  const emails = scanEmails(ruleText(text));
  const phones = scanPhones(emails.rest);
  const name = extractName(phones.rest, options);
  const fields: LeadFields = {};
  const ambiguous: RuleExtraction['ambiguous'] = [];
  if (emails.emails.length === 1) fields.email = emails.emails[0];
  else if (emails.emails.length > 1) ambiguous.push('email');
  if (phones.phones.length === 1) fields.phone = phones.phones[0];
  else if (phones.phones.length > 1) ambiguous.push('phone');
  if (name) fields.name = name.name;
  return {
    fields,
    ...(name ? { nameSource: name.source } : {}),
    ambiguous,
    invalidEmail: emails.invalidAttempt,
  };
}
