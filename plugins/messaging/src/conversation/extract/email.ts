/** A dot-atom local part (RFC 5322 without quoted strings or comments, which nobody types in a chat). */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TOP_LEVEL_DOMAIN = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** Anything shaped like `something@something` in free text; validated afterwards. */
const EMAIL_CANDIDATE = /[\p{L}\p{N}._%+'!#$&*/=?^`{|}~-]+@[\p{L}\p{N}._-]+/gu;
/** A token with an `@` in it: someone trying to type an email ("abc@", "budi@gmail"). */
const AT_TOKEN = /\S*@\S*/gu;

/**
 * Validates and normalises one email address: the domain is lower-cased (domains are case-insensitive),
 * the local part is kept as typed (it may be case-sensitive on the receiving server). Trailing sentence
 * punctuation is dropped ("budi@example.com." at the end of a sentence). Returns null when invalid.
 */
export function normaliseEmail(raw: string): string | null {
  const trimmed = raw.trim().replace(/[.,;:!?)\]}>'"]+$/u, '');
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

/** Finds the email addresses in a message. */
export function scanEmails(text: string): EmailScan {
  const emails: string[] = [];
  for (const match of text.matchAll(EMAIL_CANDIDATE)) {
    const email = normaliseEmail(match[0]);
    if (email && !emails.some((known) => known.toLowerCase() === email.toLowerCase())) emails.push(email);
  }
  const attempts = text.match(AT_TOKEN) ?? [];
  const invalidAttempt = emails.length === 0 && attempts.length > 0;
  return { emails, invalidAttempt, rest: text.replace(AT_TOKEN, ' , ') };
}
