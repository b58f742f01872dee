import { trimEndChars } from '../../domain/text.ts';

/** A dot-atom local part (RFC 5322 without quoted strings or comments, which nobody types in a chat). */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TOP_LEVEL_DOMAIN = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * A candidate's local part: a maximal run of these characters (the `@` is not one of them). Its domain,
 * matched from just after the `@`, is DOMAIN_RUN. Together they find `something@something` in free text,
 * validated afterwards; see `emailCandidates` for why they are two expressions.
 */
const LOCAL_RUN = /[\p{L}\p{N}._%+'!#$&*/=?^`{|}~-]+/gu;
const DOMAIN_RUN = /[\p{L}\p{N}._-]+/uy;
/** Whitespace-separated tokens; one with an `@` in it is an attempt at an email ("abc@", "budi@gmail"). */
const TOKEN = /\S+/g;
/** The longest address `normaliseEmail` accepts, plus room for trailing sentence punctuation. */
const MAX_CANDIDATE_LENGTH = 320;
/** Sentence punctuation that may follow an address ("budi@example.com." at the end of a sentence). */
const TRAILING_PUNCTUATION = '.,;:!?)]}>\'"';

/**
 * Validates and normalises one email address: the domain is lower-cased (domains are case-insensitive),
 * the local part is kept as typed (it may be case-sensitive on the receiving server). Trailing sentence
 * punctuation is dropped ("budi@example.com." at the end of a sentence). Returns null when invalid.
 */
export function normaliseEmail(raw: string): string | null {
  if (raw.length > MAX_CANDIDATE_LENGTH) return null;
  const trimmed = trimEndChars(raw.trim(), TRAILING_PUNCTUATION);
  if (trimmed.length > 254) return null;
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return null;
  const local = trimmed.slice(0, at);
  const domain = trimmed.slice(at + 1).toLowerCase();
  if (local.length > 64 || !LOCAL_PART.test(local)) return null;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return null;
  if (!TOP_LEVEL_DOMAIN.test(labels[labels.length - 1] ?? '')) return null;
  return `${local}@${domain}`;
}

export interface EmailScan {
  /** Distinct valid addresses, in order of appearance. */
  emails: string[];
  /** Something with an `@` that is not a valid address (an attempt to type one). */
  invalidAttempt: boolean;
  /** The text with every `@` token replaced by a comma (so the name extractor sees a clause break). */
  rest: string;
}

/**
 * Finds the email addresses in a message, in time linear in its length: only the text around each `@`
 * is read, once. (`/[...]+@[...]+/g` finds the same candidates, but on a long run of its characters
 * without an `@` it reads the run again from every start position: quadratic.)
 */
export function scanEmails(text: string): EmailScan {
  if (!text.includes('@')) return { emails: [], invalidAttempt: false, rest: text };
  const emails: string[] = [];
  // Compared case-insensitively, through a set: a message may hold hundreds of distinct addresses.
  const seen = new Set<string>();
  for (const candidate of emailCandidates(text)) {
    const email = normaliseEmail(candidate);
    if (email && !seen.has(email.toLowerCase())) {
      seen.add(email.toLowerCase());
      emails.push(email);
    }
  }
  return {
    emails,
    // The text has an `@`, so some token has one: an attempt, unless a valid address was found.
    invalidAttempt: emails.length === 0,
    rest: text.replace(TOKEN, (token) => (token.includes('@') ? ' , ' : token)),
  };
}

/**
 * The `local@domain` candidates, leftmost first, as `/[local]+@[domain]+/g` would match them: a maximal
 * run of local-part characters directly followed by `@` and at least one domain character. A match
 * ends where its domain run ends, and the search goes on from there.
 */
function emailCandidates(text: string): string[] {
  const found: string[] = [];
  LOCAL_RUN.lastIndex = 0;
  for (let run = LOCAL_RUN.exec(text); run !== null; run = LOCAL_RUN.exec(text)) {
    const at = run.index + run[0].length;
    if (text.charCodeAt(at) !== 0x40) continue;
    DOMAIN_RUN.lastIndex = at + 1;
    const domain = DOMAIN_RUN.exec(text);
    if (domain === null) continue;
    found.push(text.slice(run.index, DOMAIN_RUN.lastIndex));
    LOCAL_RUN.lastIndex = DOMAIN_RUN.lastIndex;
  }
  return found;
}
