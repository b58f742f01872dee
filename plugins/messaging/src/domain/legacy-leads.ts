/**
 * The legacy leads API's deprecation, as its responses announce it (README, "Staff API", "Leads"): the
 * `Deprecation` header (RFC 9745: `@` and the unix time it was deprecated, 2026-11-24T00:00:00Z, when the v2
 * API replaced it) and a `Link` to its successor.
 */
export const LEGACY_LEADS_DEPRECATED_AT = new Date('2026-11-24T00:00:00Z');

export const LEGACY_LEADS_HEADERS = {
  Deprecation: `@${LEGACY_LEADS_DEPRECATED_AT.getTime() / 1000}`,
  Link: '</api/v1/leads/v2>; rel="successor-version"',
} as const;
