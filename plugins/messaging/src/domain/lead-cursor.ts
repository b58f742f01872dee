import { z } from 'zod';
import { decodeCursor, encodeCursor } from './cursor.ts';
import type { LeadSort } from './lead-schemas.ts';

/**
 * Where a walk of the v2 list stands: the sort key of the last row, to the microsecond PostgreSQL keeps
 * (a millisecond copy would repeat or skip rows that share a millisecond), and its id, which breaks ties.
 */
export interface LeadPosition {
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  at: string;
  id: string;
}

/** The column a sort walks and its direction. */
export interface LeadOrder {
  key: 'createdAt' | 'updatedAt';
  descending: boolean;
}

export function leadOrder(sort: LeadSort): LeadOrder {
  return {
    key: sort.endsWith('createdAt') ? 'createdAt' : 'updatedAt',
    descending: sort.startsWith('-'),
  };
}

/**
 * A real instant in that form, one PostgreSQL reads: the date and time must read back unchanged (no 30
 * February), and the year is 1 or later (PostgreSQL has no year 0; the cursor is sent to it as text).
 */
const instantText = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
  .refine((text) => {
    const at = new Date(text);
    return (
      !text.startsWith('0000') &&
      !Number.isNaN(at.getTime()) &&
      at.toISOString().slice(0, 19) === text.slice(0, 19)
    );
  });

const PositionSchema = z.tuple([instantText, z.uuid()]);

/** A cursor belongs to its sort: one of another sort does not decode. */
const kindOf = (sort: LeadSort) => `leads:${sort}`;

export function leadCursor(sort: LeadSort, position: LeadPosition): string {
  return encodeCursor(kindOf(sort), [position.at, position.id]);
}

/** The position a cursor of `sort` holds, or null. */
export function leadCursorPosition(sort: LeadSort, cursor: string): LeadPosition | null {
  const decoded = decodeCursor(kindOf(sort), cursor, PositionSchema);
  return decoded === null ? null : { at: decoded[0], id: decoded[1] };
}
