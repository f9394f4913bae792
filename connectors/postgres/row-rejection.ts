/**
 * Which PostgreSQL errors are about a row rather than the batch: SQLSTATE
 * class 22, data exception (22021: a NUL byte in text; 22P02: not a number;
 * 22003: out of range) and class 23, integrity constraint violation (23505
 * unique, 23502 not null, 23503 foreign key, 23514 check). Another batch
 * without that row goes through, so PostgresBolt splits the batch to find it.
 * Everything else — connection errors (class 08), the server shutting down
 * (57P01), a missing table or column (42P01, 42703), errors pg raises without
 * a SQLSTATE (a refused connection) — is about the batch or the server, and
 * fails it whole.
 */
import type { RowRejection } from '../common/batching-bolt.js';

const ROW_CLASSES = /^2[23][0-9A-Z]{3}$/;

export function rowRejectionOf(err: unknown): RowRejection | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !ROW_CLASSES.test(code)) return null;
  return { code, message: err instanceof Error ? err.message : String(err) };
}
