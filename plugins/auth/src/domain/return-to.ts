/**
 * Where a sign-in returns to: a path on this origin (`/inbox?x=1`), never another site. Anything else —
 * absolute URLs, protocol-relative `//host`, backslashes browsers read as slashes, control characters — is `/`.
 */
export function safeReturnTo(requested: string | undefined): string {
  if (requested === undefined || !requested.startsWith('/') || requested.startsWith('//')) return '/';
  if (requested.includes('\\') || [...requested].some((char) => char < ' ' || char === '\u007f')) return '/';
  const resolved = new URL(requested, 'http://gatehouse.invalid');
  if (resolved.origin !== 'http://gatehouse.invalid') return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
