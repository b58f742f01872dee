/** SQL for a timestamp column as ISO-8601 UTC text with milliseconds, as `Date.toISOString()` writes it. */
export function isoText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
