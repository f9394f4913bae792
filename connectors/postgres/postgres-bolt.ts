/**
 * PostgresBolt: writes tuples as rows, a batch per transaction, and acks a
 * batch's tuples only after its COMMIT (a failed batch fails them all, to be
 * replayed). The default is idempotent: `mode: 'upsert'` writes
 * `INSERT … ON CONFLICT (conflictColumns) DO UPDATE SET <the other columns>`,
 * so a replayed tuple rewrites its row instead of adding one — which is what
 * makes at-least-once delivery come out exactly once in the table.
 * `mode: 'insert'` is a plain INSERT: every replay (a worker killed, a batch
 * whose commit went unanswered) adds the row again.
 *
 * Within one upsert batch, tuples with the same key collapse to the last one
 * (PostgreSQL refuses to update a row twice in one statement); all of them are
 * acked with the batch. Up to `connection.poolSize` batches are written at once,
 * on separate connections, when they share no key (so a later write of a row
 * never overtakes an earlier one). Storm's JdbcInsertBolt writes per tuple with a plain
 * insert (or the query you give it); this bolt batches and upserts by default.
 *
 * A batch that fails with an error of SQLSTATE class 22 (data exception: a NUL
 * byte in text, 22021; a value out of range) or 23 (a constraint) is about
 * one of its rows: it is split until the row stands alone (BatchingBolt), the
 * rest is written, and that tuple is failed — or, with `onRejected:
 * 'failure-stream'`, emitted on the failure stream with the error's message
 * and SQLSTATE and acked, so that a row PostgreSQL will never take stops
 * coming back. Any other error (the connection, 08xxx; the server shutting
 * down, 57P01; a missing column, 42703) fails the batch whole, as before.
 */
import type pg from 'pg';
import { z } from 'zod';
import type { Conf, OutputFieldsDeclarer, TopologyContext, Tuple } from '../../topology-sdk/index.js';
import { BatchingBolt, type RowRejection } from '../common/batching-bolt.js';
import { ConnectorRejectedError } from '../common/connector-errors.js';
import { rowRejectionOf } from './row-rejection.js';
import type { ConnectorClock } from '../common/connector-clock.js';
import { parseOptions } from '../common/connector-options.js';
import { batchOptionsSchema } from '../common/tuple-batcher.js';
import { inTransaction, postgresAddress, postgresConfig, postgresConnectionSchema, postgresPool } from './postgres-connection.js';
import { createHash } from 'node:crypto';
import { COLUMN_TYPES_SQL, insertText, quoteTable, rowsPerStatement, unnestInsertText, type ConflictAction } from './sql-text.js';

const CONNECTOR = 'PostgresBolt';

const optionsSchema = z
  .strictObject({
    connection: postgresConnectionSchema.prefault({}),
    /** The table (`schema.table` allowed). */
    table: z.string().min(1),
    /** Columns written: a list (each filled from the tuple field of the same name) or { column: field }. */
    columns: z.union([z.array(z.string().min(1)).min(1), z.record(z.string().min(1), z.string().min(1))]),
    mode: z.enum(['upsert', 'insert']).default('upsert'),
    /** upsert: the columns of the primary key or unique constraint that identifies a row. */
    conflictColumns: z.array(z.string().min(1)).min(1).optional(),
    /** upsert: on a conflict, overwrite the other columns (`update`) or keep the row there (`nothing`). */
    onConflict: z.enum(['update', 'nothing']).default('update'),
    batch: batchOptionsSchema.prefault({}),
    /** A row PostgreSQL refuses for what it holds (SQLSTATE class 22 or 23): fail its tuple, or send it to the failure stream. */
    onRejected: z.enum(['fail', 'failure-stream']).default('fail'),
    /** The stream rejected tuples go to with onRejected: 'failure-stream' (the columns' fields, then reason and sqlstate). */
    failureStream: z.string().min(1).default('failed'),
  })
  .check((ctx) => {
    const o = ctx.value;
    const columns = Array.isArray(o.columns) ? o.columns : Object.keys(o.columns);
    if (o.mode === 'upsert' && o.conflictColumns === undefined) {
      ctx.issues.push({ code: 'custom', path: ['conflictColumns'], input: undefined, message: "mode 'upsert' needs the key's columns (or mode: 'insert', whose replays duplicate rows)" });
    }
    const fields = Array.isArray(o.columns) ? o.columns : Object.values(o.columns);
    for (const f of ['reason', 'sqlstate']) {
      if (o.onRejected === 'failure-stream' && fields.includes(f)) ctx.issues.push({ code: 'custom', path: ['columns'], input: o.columns, message: `the failure stream adds a field "${f}" of its own: write the column from a field of another name` });
    }
    for (const k of o.conflictColumns ?? []) {
      if (!columns.includes(k)) ctx.issues.push({ code: 'custom', path: ['conflictColumns'], input: o.conflictColumns, message: `"${k}" is not one of the columns written (${columns.join(', ')})` });
    }
  });
export type PostgresBoltOptions = z.input<typeof optionsSchema>;
type Options = z.output<typeof optionsSchema>;

export class PostgresBolt extends BatchingBolt {
  private readonly o: Options;
  private readonly columns: string[];
  private readonly fields: string[];
  private readonly conflict: ConflictAction;
  /** Positions of the key columns, for collapsing a batch's tuples by key. */
  private readonly keyIndexes: number[];
  private pool: pg.Pool | null = null;
  /** The prepared statement of the unnest path, once the columns' types are known; null: the VALUES path. */
  private statement: { name: string; text: string } | null | undefined;

  constructor(options: PostgresBoltOptions, clock?: ConnectorClock) {
    const o = parseOptions(CONNECTOR, optionsSchema, options);
    super(CONNECTOR, o.batch, clock);
    this.o = o;
    this.columns = Array.isArray(o.columns) ? [...o.columns] : Object.keys(o.columns);
    this.fields = Array.isArray(o.columns) ? [...o.columns] : Object.values(o.columns);
    const keys = o.conflictColumns ?? [];
    this.conflict =
      o.mode === 'insert'
        ? { kind: 'none' }
        : o.onConflict === 'nothing'
          ? { kind: 'nothing', keys }
          : { kind: 'update', keys, set: this.columns.filter((c) => !keys.includes(c)) };
    this.keyIndexes = keys.map((k) => this.columns.indexOf(k));
  }

  /** One batch per pooled connection. */
  protected override maxWrites(): number {
    return this.o.connection.poolSize;
  }

  /**
   * Two batches are written at once only when no row is in both: an upsert of a row must never overtake an earlier
   * one (the older values would win), and two transactions on disjoint keys never wait on each other's row locks.
   * Plain inserts may always overlap.
   */
  protected override mayOverlap(next: readonly Tuple[], writing: readonly (readonly Tuple[])[]): boolean {
    if (this.conflict.kind === 'none') return true;
    const keys = new Set(writing.flatMap((b) => b.map((t) => this.keyOfTuple(t))));
    return next.every((t) => !keys.has(this.keyOfTuple(t)));
  }

  private keyOfTuple(t: Tuple): string {
    return keyOf(this.keyIndexes.map((i) => t.getValueByField(this.fields[i]!)));
  }

  protected open(_conf: Conf, context: TopologyContext): void {
    this.requireFields('columns', this.fields);
    const config = postgresConfig(CONNECTOR, this.o.connection);
    this.pool = postgresPool(config, context.log, postgresAddress(config));
  }

  protected async writeBatch(tuples: readonly Tuple[]): Promise<void> {
    const rows = this.rowsOf(tuples);
    try {
      const statement = this.statement === undefined ? await this.prepareStatement() : this.statement;
      if (statement !== null) {
        // One statement is a transaction of its own (autocommit): all its rows or none, in one round trip instead
        // of three (BEGIN, INSERT, COMMIT), each of which waits its turn on a busy worker's event loop.
        await this.pool!.query({ ...statement, values: this.columns.map((_, c) => rows.map((r) => r[c])) });
        return;
      }
      // The VALUES path may take several statements: one transaction around them.
      await inTransaction(this.pool!, async (client) => {
        const perStatement = rowsPerStatement(this.columns.length);
        for (let i = 0; i < rows.length; i += perStatement) {
          const chunk = rows.slice(i, i + perStatement);
          await client.query(insertText(this.o.table, this.columns, chunk.length, this.conflict), chunk.flat());
        }
      });
    } catch (err) {
      // The table may have been altered: learn its columns again with the next batch.
      this.statement = undefined;
      throw err;
    }
  }

  /** Reads the columns' types and picks the statement: unnest() unless a column is missing or array-typed. */
  private async prepareStatement(): Promise<{ name: string; text: string } | null> {
    const { rows } = await this.pool!.query<{ name: string; type: string }>(COLUMN_TYPES_SQL, [quoteTable(this.o.table)]);
    const types = new Map(rows.map((r) => [r.name, r.type]));
    const missing = this.columns.filter((c) => !types.has(c));
    if (missing.length > 0) throw new Error(`table ${this.o.table} has no column(s) ${missing.join(', ')} (it has ${[...types.keys()].join(', ')})`);
    const columnTypes = this.columns.map((c) => types.get(c)!);
    if (columnTypes.some((t) => t.endsWith('[]'))) return (this.statement = null);
    const text = unnestInsertText(this.o.table, this.columns, columnTypes, this.conflict);
    // Named after its text: a connection prepares it once, and an altered table gets a new one.
    return (this.statement = { name: `hstorm_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text });
  }

  private rowsOf(tuples: readonly Tuple[]): unknown[][] {
    const rows = tuples.map((t) => this.fields.map((f) => t.getValueByField(f) ?? null));
    if (this.conflict.kind !== 'update') return rows;
    const byKey = new Map<string, unknown[]>();
    for (const row of rows) byKey.set(keyOf(this.keyIndexes.map((i) => row[i])), row);
    return [...byKey.values()];
  }

  protected override rowRejection(err: unknown): RowRejection | null {
    return rowRejectionOf(err);
  }

  protected override rejected(tuple: Tuple, r: RowRejection): void {
    if (this.o.onRejected === 'fail') return super.rejected(tuple, r);
    this.collector.reportError(new ConnectorRejectedError(CONNECTOR, r.code, r.message, 'failure-stream'));
    this.collector.emit(this.o.failureStream, [tuple], [...this.streamFields().map((f) => tuple.getValueByField(f) ?? null), r.message, r.code]);
    this.collector.ack(tuple);
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    if (this.o.onRejected === 'failure-stream') declarer.declareStream(this.o.failureStream, [...this.streamFields(), 'reason', 'sqlstate']);
  }

  /** The fields a rejected tuple carries on the failure stream: those the columns are written from, each once. */
  private streamFields(): string[] {
    return [...new Set(this.fields)];
  }

  protected async shutdown(): Promise<void> {
    await this.pool?.end();
  }
}

/**
 * A map key for a row's key values, as text: PostgreSQL compares the values once cast to the column's type, so 1 and
 * "1" are one key to it (and an int8 column comes back from pg as a string).
 */
export function keyOf(values: readonly unknown[]): string {
  return values.map((v) => String(v)).join('\u0000');
}
