/**
 * SQL text for the PostgreSQL connectors: identifiers quoted (a table or column
 * named in the options is never spliced in raw), values always as $n
 * parameters, and multi-row statements cut to PostgreSQL's 65 535 parameters.
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
  let text = `INSERT INTO ${quoteTable(table)} (${columns.map(quoteIdent).join(',')}) VALUES ${tuples.join(',')}`;
  if (conflict.kind === 'nothing' || (conflict.kind === 'update' && conflict.set.length === 0)) {
    text += ` ON CONFLICT (${conflict.keys.map(quoteIdent).join(',')}) DO NOTHING`;
  } else if (conflict.kind === 'update') {
    text += ` ON CONFLICT (${conflict.keys.map(quoteIdent).join(',')}) DO UPDATE SET ${conflict.set.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', ')}`;
  }
  return text;
}

/** SELECT k, c… FROM t WHERE k = ANY($1): one query for a batch's keys. */
export function lookupText(table: string, keyColumn: string, columns: readonly string[]): string {
  const selected = [keyColumn, ...columns.filter((c) => c !== keyColumn)];
  return `SELECT ${selected.map(quoteIdent).join(', ')} FROM ${quoteTable(table)} WHERE ${quoteIdent(keyColumn)} = ANY($1)`;
}
