import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * Pipeline step 1: security headers, with helmet configured for a JSON API rather than for HTML pages (OWASP
 * REST Security Cheat Sheet, "Security headers"): no content may run or be framed, HTTPS is pinned, types are
 * not sniffed, no referrer leaks. Headers that only matter for HTML documents or for retired browsers
 * (X-XSS-Protection, X-Download-Options, X-DNS-Prefetch-Control, X-Permitted-Cross-Domain-Policies,
 * Origin-Agent-Cluster, Cross-Origin-Opener-Policy) are not sent. A plugin serving an HTML page (the KYC API
 * explorer) sets the policy that page needs on its own route.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    xContentTypeOptions: true,
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: false,
    crossOriginEmbedderPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xPoweredBy: false,
    xXssProtection: false,
  });
}

/**
 * The headers `securityHeaders()` sets, as name/value pairs, for answers written straight to a socket
 * where there is no response object (client-error.ts). Recorded once from the same middleware, so both
 * kinds of answer carry the same policy.
 */
export function securityHeaderPairs(): ReadonlyArray<readonly [string, string]> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers.set(name, String(value));
    },
    removeHeader(name: string) {
      headers.delete(name);
    },
  };
  void securityHeaders()({} as Request, recorder as unknown as Response, () => undefined);
  return [...headers];
}
