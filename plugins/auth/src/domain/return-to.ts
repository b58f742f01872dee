/**
 * Where a browser goes after signing in (README, "Login pages"): only a path on this gateway's own origin.
 * Anything else — another host, a scheme, a protocol-relative `//host`, the `/\host` spelling browsers read as
 * `//host`, a value too long to be a real path — falls back to `/`, so a crafted sign-in link cannot send
 * someone to another site after a genuine sign-in (an open redirect).
 */

/** Longer than any path the gateway serves; a longer value is not a place to return to. */
export const RETURN_TO_MAX = 2048;

/** The place to return to when the one asked for is missing or refused. */
export const DEFAULT_RETURN_TO = '/';

/** A stand-in origin to resolve against: any value that resolves elsewhere is not a same-origin path. */
const PROBE_ORIGIN = 'http://gatehouse.invalid';

/**
 * The same-origin path `value` names (path, query and fragment, as the URL parser normalises them), or `/`.
 * The value is resolved the way a browser resolves a link (backslashes, tabs and newlines included), and
 * accepted only when it starts with one `/` and stays on the origin it was resolved against.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > RETURN_TO_MAX)
    return DEFAULT_RETURN_TO;
  // A relative path without a leading slash ("admin") would resolve against the login page's own path.
  if (!value.startsWith('/')) return DEFAULT_RETURN_TO;
  if (!URL.canParse(value, PROBE_ORIGIN)) return DEFAULT_RETURN_TO;
  const target = new URL(value, PROBE_ORIGIN);
  if (target.origin !== PROBE_ORIGIN) return DEFAULT_RETURN_TO;
  return `${target.pathname}${target.search}${target.hash}`;
}
