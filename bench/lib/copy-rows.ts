import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A value of one column of a COPY text row; null is SQL NULL. */
export type CopyValue = string | number | null;

const SPECIAL = /[\\\t\n\r]/;

function field(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  if (!SPECIAL.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (char) =>
    char === '\\' ? '\\\\' : char === '\t' ? '\\t' : char === '\n' ? '\\n' : '\\r',
  );
}

/** One row in COPY's text format (tab-separated, backslash escapes, `\N` for NULL), newline included. */
export function copyLine(values: readonly CopyValue[]): string {
  let line = field(values[0] ?? null);
  for (let n = 1; n < values.length; n++) line += '\t' + field(values[n] ?? null);
  return line + '\n';
}

/** Rows grouped into chunks of about `bytes`: one stream write per chunk instead of one per row. */
function* chunked(lines: Iterable<string>, bytes: number): Generator<string> {
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= bytes) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/**
 * Streams `lines` (from `copyLine`) into `table` with `COPY ... FROM STDIN`, at the pace PostgreSQL takes
 * them (the generator is only pulled while the socket accepts more). `freeze`: the rows are written frozen
 * and all-visible, allowed only when the table was created or truncated in the same transaction (a fresh
 * seed: nothing to vacuum afterwards). Returns the rows copied.
 */
export async function copyRows(
  db: pg.ClientBase,
  table: string,
  columns: readonly string[],
  lines: Iterable<string>,
  options: { freeze?: boolean } = {},
): Promise<number> {
  const sql = `COPY ${table} (${columns.join(', ')}) FROM STDIN${options.freeze ? ' WITH (FREEZE)' : ''}`;
  const stream = db.query(copyFrom(sql));
  await pipeline(Readable.from(chunked(lines, 1 << 18), { objectMode: false }), stream);
  return stream.rowCount;
}
