import type { z } from 'zod';

/**
 * Opaque keyset cursors (README, "Staff API", "Pagination"): the position after the last row of a page,
 * as base64url JSON tagged with the list and sort it belongs to. Clients pass it back unchanged; a cursor
 * of another list or sort, or one that was altered, does not decode. Never an offset: a page costs the
 * same at any depth, and rows inserted meanwhile never shift the walk.
 */
export function encodeCursor(kind: string, position: unknown): string {
  return Buffer.from(JSON.stringify({ k: kind, p: position }), 'utf8').toString('base64url');
}

/** The position a cursor holds, or null when it is not a cursor of `kind` whose position fits `schema`. */
export function decodeCursor<T>(kind: string, cursor: string, schema: z.ZodType<T>): T | null {
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof decoded !== 'object' || decoded === null) return null;
  const { k, p } = decoded as { k?: unknown; p?: unknown };
  if (k !== kind) return null;
  const parsed = schema.safeParse(p);
  return parsed.success ? parsed.data : null;
}
