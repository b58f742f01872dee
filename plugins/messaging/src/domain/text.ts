/**
 * How much of a message the rule tiers read (classifier tiers 1–2, the lead extractors, language
 * detection): the first 4,096 UTF-16 code units, the longest text body WhatsApp sends. Anything past it
 * comes only from a hostile or broken sender; it is stored with the message but never scanned, so the
 * cost of reading one message has a fixed ceiling whatever the webhook accepts (see ../../README.md,
 * "Bounded work per message").
 */
export const RULE_TEXT_MAX_CHARS = 4_096;

/** The part of `text` the rule tiers read: at most RULE_TEXT_MAX_CHARS, never half a surrogate pair. */
export function ruleText(text: string): string {
  if (text.length <= RULE_TEXT_MAX_CHARS) return text;
  const last = text.charCodeAt(RULE_TEXT_MAX_CHARS - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? RULE_TEXT_MAX_CHARS - 1 : RULE_TEXT_MAX_CHARS;
  return text.slice(0, end);
}

/**
 * `text` without the trailing characters that are in `chars` (one pass from the end). A regular
 * expression such as `/[.,]+$/` does the same in quadratic time on a long run of those characters
 * followed by anything else, because every start position in the run is tried.
 */
export function trimEndChars(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text.charAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}
