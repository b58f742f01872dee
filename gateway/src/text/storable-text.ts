/**
 * What PostgreSQL can store, and what may travel as an identifier. A `text` value refuses U+0000 (SQLSTATE
 * 22021), a `jsonb` value refuses U+0000 and unpaired UTF-16 surrogates (22P05, 22P02), and the driver turns
 * an unpaired surrogate in `text` into U+FFFD, so what is stored would differ from what was sent. Requests
 * are refused before such text reaches a handler (docs/errors.md, `request.invalid_text`); what must be kept
 * anyway (a customer's message, an audit row) is made storable with `storableText`.
 */

/** Why a string cannot be stored as PostgreSQL text or jsonb, or null when it can. */
export function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'contains U+0000 (NUL), which text cannot hold';
  if (!text.isWellFormed()) return 'contains an unpaired UTF-16 surrogate, which is not Unicode text';
  return null;
}

/** Text made storable: U+0000 and unpaired surrogates become U+FFFD; everything else is kept. */
export function storableText(text: string): string {
  return (text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text).toWellFormed();
}

/**
 * Whether an identifier (a user id, a role, a message id) is well-formed text without control characters
 * (C0, DEL and C1): what may be stored, logged, compared and written into an HTTP header value.
 */
export function isCleanIdentifier(value: string): boolean {
  if (!value.isWellFormed()) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return false;
  }
  return true;
}
