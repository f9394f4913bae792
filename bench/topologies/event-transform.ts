/**
 * The work both sides of the connectors benchmark do per event, shared so it
 * is exactly the same: an entry `{ uid, amount, category }` of a Redis stream
 * becomes a row (uid, amount in cents, category upper-cased).
 */
export type EventRow = [uid: string, cents: number, category: string];

export function eventRow(fields: Readonly<Record<string, string>>): EventRow {
  return [fields.uid ?? '', Math.round(Number(fields.amount) * 100), (fields.category ?? '').toUpperCase()];
}

/**
 * The table both write into, upserting on uid. `committed_at` is filled by the
 * database as each row is written, so both sides' rates are measured the same
 * way, by the database, not by each side's own sampling.
 */
export function eventTableSql(table: string): string {
  return `CREATE TABLE ${table} (uid text PRIMARY KEY, cents integer NOT NULL, category text NOT NULL, committed_at timestamptz NOT NULL DEFAULT clock_timestamp())`;
}
