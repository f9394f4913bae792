/**
 * SQL text for the PostgreSQL connectors: identifiers quoted (a table or column
 * named in the options is never spliced in raw), values always as $n
 * parameters. A batch goes in as one array per column through unnest(): the
 * statement's text is the same for every batch, so it is prepared once per
 * connection, and 500 rows are 3 parameters instead of 1 500 (about a quarter
 * less time per batch than a multi-row VALUES list, docs/benchmarks.md). A
 * table with an array-typed column cannot take that path (unnest would
 * flatten the arrays): it gets the multi-row VALUES list, cut to PostgreSQL's
 * 65 535 parameters per statement.
 */

/** "name", with embedded quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A table name: `schema.table` quotes each part. */
export function quoteTable(name: string): string {
  return name.split('.').map(quoteIdent).join('.');
}

/** Rows per statement so that rows × columns stays within the protocol's parameter limit. */
export function rowsPerStatement(columns: number): number {
  return Math.max(1, Math.floor(65_535 / columns));
}

export type ConflictAction = { kind: 'none' } | { kind: 'nothing'; keys: readonly string[] } | { kind: 'update'; keys: readonly string[]; set: readonly string[] };

/** INSERT INTO t (c…) VALUES ($1,…),(…) [ON CONFLICT (k…) DO NOTHING | DO UPDATE SET c = EXCLUDED.c, …]. */
export function insertText(table: string, columns: readonly string[], rows: number, conflict: ConflictAction): string {
  const n = columns.length;
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) tuples.push(`(${columns.map((_, c) => `$${r * n + c + 1}`).join(',')})`);
  return `INSERT INTO ${quoteTable(table)} (${columns.map(quoteIdent).join(',')}) VALUES ${tuples.join(',')}${onConflictText(conflict)}`;
}

function onConflictText(conflict: ConflictAction): string {
  if (conflict.kind === 'nothing' || (conflict.kind === 'update' && conflict.set.length === 0)) {
    return ` ON CONFLICT (${conflict.keys.map(quoteIdent).join(',')}) DO NOTHING`;
  }
  if (conflict.kind === 'update') {
    return ` ON CONFLICT (${conflict.keys.map(quoteIdent).join(',')}) DO UPDATE SET ${conflict.set.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', ')}`;
  }
  return '';
}

/**
 * INSERT INTO t (c…) SELECT * FROM unnest($1::type1[], $2::type2[], …) [ON CONFLICT …]: one array parameter per
 * column; `types` are the columns' types as format_type() names them.
 */
export function unnestInsertText(table: string, columns: readonly string[], types: readonly string[], conflict: ConflictAction): string {
  const arrays = types.map((t, i) => `$${i + 1}::${t}[]`).join(', ');
  return `INSERT INTO ${quoteTable(table)} (${columns.map(quoteIdent).join(',')}) SELECT * FROM unnest(${arrays})${onConflictText(conflict)}`;
}

/** The column name → type (format_type) of a table, for unnestInsertText; $1 is the quoted table name. */
export const COLUMN_TYPES_SQL = 'SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped';

/** SELECT k, c… FROM t WHERE k = ANY($1): one query for a batch's keys. */
export function lookupText(table: string, keyColumn: string, columns: readonly string[]): string {
  const selected = [keyColumn, ...columns.filter((c) => c !== keyColumn)];
  return `SELECT ${selected.map(quoteIdent).join(', ')} FROM ${quoteTable(table)} WHERE ${quoteIdent(keyColumn)} = ANY($1)`;
}
