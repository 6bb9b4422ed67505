/**
 * A timestamptz column as the wire carries it (ISO 8601 in UTC with milliseconds, exactly what
 * `Date.toISOString` writes; both drop the microseconds), made by PostgreSQL: a list reads text instead
 * of making a Date of every row only to print it again.
 */
export const isoTime = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
