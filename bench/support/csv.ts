/**
 * CSV beside every benchmark report, written by csv-stringify: a value with a
 * comma, a quote or a newline (a backend label, a note) is quoted as RFC 4180
 * asks, so the file reads back as written.
 */
import { writeFileSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';

export type CsvRow = Record<string, string | number | boolean | null>;

/** The rows as CSV with a header of every column any row has, in first-seen order; null and missing cells are empty. */
export function toCsv(rows: readonly CsvRow[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (columns.length === 0) return '';
  return stringify(
    rows.map((r) => columns.map((c) => r[c] ?? null)),
    { header: true, columns, cast: { boolean: (v) => String(v) } },
  );
}

export function writeCsv(path: string, rows: readonly CsvRow[]): void {
  writeFileSync(path, toCsv(rows));
}
