/**
 * A lead's entity tag and the `If-Match` header that names it (README, "Staff API", "Leads"): the tag is
 * strong and made of the lead's id and version, `"<id>.<version>"`, so the version a client read can be
 * checked by the UPDATE itself. Clients treat it as opaque.
 */

/** The largest version PostgreSQL's `integer` holds: a larger one in a header names no version. */
const MAX_VERSION = 2_147_483_647;

/** The strong ETag of a lead at a version. */
export function leadEtag(id: string, version: number): string {
  return `"${id}.${version}"`;
}

/** What an `If-Match` header asks of a lead. */
export type LeadPrecondition =
  /** No header: the patch is refused, so that no client overwrites a change it has not seen by accident. */
  | { kind: 'missing' }
  /** `*`: whatever the current version is (the lead must exist). */
  | { kind: 'any' }
  /** The versions of this lead the header names (none: no tag names this lead, so nothing matches). */
  | { kind: 'versions'; versions: number[] };

/**
 * An entity tag of a list, with the optional weakness mark, as RFC 9110 writes it: `etagc` is any visible
 * character but `"` (and obs-text). Sticky, so the list is read once from left to right.
 */
const LIST_ITEM = /[ \t]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*(?:,|$)/y;

/**
 * Reads `If-Match` for the lead `id`. Strong comparison: a weak tag (`W/"…"`) never matches. A header that
 * is not a list of entity tags matches nothing (412), as a tag of another lead does.
 */
export function leadPrecondition(header: string | undefined, id: string): LeadPrecondition {
  if (header === undefined) return { kind: 'missing' };
  if (header.trim() === '*') return { kind: 'any' };
  const versions: number[] = [];
  LIST_ITEM.lastIndex = 0;
  while (LIST_ITEM.lastIndex < header.length) {
    const start = LIST_ITEM.lastIndex;
    const item = LIST_ITEM.exec(header);
    if (item === null || LIST_ITEM.lastIndex === start) return { kind: 'versions', versions: [] };
    const version = item[1] === undefined ? versionOf(item[2] ?? '', id) : null;
    if (version !== null) versions.push(version);
  }
  return { kind: 'versions', versions };
}

function versionOf(tag: string, id: string): number | null {
  const prefix = `${id}.`;
  if (!tag.startsWith(prefix)) return null;
  const digits = tag.slice(prefix.length);
  if (!/^\d{1,10}$/.test(digits)) return null;
  const version = Number(digits);
  return version <= MAX_VERSION ? version : null;
}
