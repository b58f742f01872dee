/**
 * An aligned text table, kubectl style: upper-case headers, columns separated by two spaces, the last column not
 * padded (so long messages do not push trailing blanks), "-" for empty cells.
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = [headers.map((header) => header.toUpperCase()), ...rows].map((row) =>
    headers.map((_, column) => clean(row[column] ?? '')),
  );
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((cell, column) => (column === headers.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** One line per cell: a message from the API server may hold newlines or tabs that would break the columns. */
function clean(cell: string): string {
  const flat = cell.replace(/\s+/g, ' ').trim();
  return flat === '' ? '-' : flat;
}
