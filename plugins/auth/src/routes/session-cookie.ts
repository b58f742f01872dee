import { isIP } from 'node:net';
import { parse } from 'cookie';
import type { CookieOptions, Request } from 'express';

/**
 * The session cookie's flags (README, "Web sessions"): HttpOnly, Secure except on http://localhost,
 * SameSite=Lax, Path=/. Secure follows APP_BASE_URL; without one, only development runs without it.
 * The loopback addresses count as localhost: in development APP_BASE_URL defaults to
 * http://127.0.0.1:<PORT>, and not every browser keeps a Secure cookie set over plain http there.
 */
export function sessionCookieOptions(
  appBaseUrl: string | undefined,
  development: boolean,
  maxAgeSeconds: number,
): CookieOptions {
  const base = appBaseUrl && URL.canParse(appBaseUrl) ? new URL(appBaseUrl) : undefined;
  const insecureAllowed = base ? base.protocol === 'http:' && isLoopback(base.hostname) : development;
  return {
    httpOnly: true,
    secure: !insecureAllowed,
    sameSite: 'lax',
    path: '/',
    maxAge: maxAgeSeconds * 1000,
  };
}

/** `localhost`, 127.0.0.0/8 or ::1, as a URL's `hostname` spells them. */
function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  return isIP(hostname) === 4 && hostname.startsWith('127.');
}

export function readSessionCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  return header ? parse(header)[name] : undefined;
}

/**
 * A cookie-authenticated request that changes state must come from the application's own origin (README,
 * "Web sessions"): a forged cross-site form post carries the cookie but not this Origin.
 */
export function sameOrigin(req: Request, appBaseUrl: string | undefined): boolean {
  const origin = req.headers.origin;
  if (!appBaseUrl || !URL.canParse(appBaseUrl)) return origin === undefined;
  return origin === new URL(appBaseUrl).origin;
}
