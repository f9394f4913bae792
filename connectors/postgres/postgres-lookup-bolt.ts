/**
 * PostgresLookupBolt (Storm's JdbcLookupBolt, batched): enriches each tuple
 * with columns of the rows whose `keyColumn` equals the tuple's `keyField`.
 * A batch's keys go in one `SELECT … WHERE key = ANY($1)`; each tuple is then
 * emitted once per matching row (anchored to it) with `outputFields` — each
 * one either a selected column or a field copied from the input — and acked;
 * a failed query fails the batch's tuples. A tuple with no row is emitted with
 * nulls for the columns (`missing: 'nulls'`, the default) or not at all
 * (`missing: 'skip'`, Storm's behaviour), and acked either way.
 */
import type pg from 'pg';
import { z } from 'zod';
import type { Conf, OutputFieldsDeclarer, TopologyContext, Tuple } from '../../topology-sdk/index.js';
import { BatchingBolt } from '../common/batching-bolt.js';
import type { ConnectorClock } from '../common/connector-clock.js';
import { parseOptions } from '../common/connector-options.js';
import { batchOptionsSchema } from '../common/tuple-batcher.js';
import { keyOf } from './postgres-bolt.js';
import { postgresAddress, postgresConfig, postgresConnectionSchema, postgresPool } from './postgres-connection.js';
import { lookupText } from './sql-text.js';

const CONNECTOR = 'PostgresLookupBolt';

const optionsSchema = z.strictObject({
  connection: postgresConnectionSchema.prefault({}),
  table: z.string().min(1),
  /** The column matched against the tuple's key. */
  keyColumn: z.string().min(1),
  /** The input field holding the key. */
  keyField: z.string().min(1),
  /** Columns selected. */
  columns: z.array(z.string().min(1)).min(1),
  /** The emitted tuple's fields: each a selected column, or an input field copied through. */
  outputFields: z.array(z.string().min(1)).min(1),
  missing: z.enum(['nulls', 'skip']).default('nulls'),
  batch: batchOptionsSchema.prefault({}),
});
export type PostgresLookupBoltOptions = z.input<typeof optionsSchema>;
type Options = z.output<typeof optionsSchema>;

export class PostgresLookupBolt extends BatchingBolt {
  private readonly o: Options;
  private readonly query: string;
  private pool: pg.Pool | null = null;

  constructor(options: PostgresLookupBoltOptions, clock?: ConnectorClock) {
    const o = parseOptions(CONNECTOR, optionsSchema, options);
    super(CONNECTOR, o.batch, clock);
    this.o = o;
    this.query = lookupText(o.table, o.keyColumn, o.columns);
  }

  protected open(_conf: Conf, context: TopologyContext): void {
    this.requireFields('keyField', [this.o.keyField]);
    this.requireFields('outputFields', this.o.outputFields.filter((f) => !this.o.columns.includes(f)));
    const config = postgresConfig(CONNECTOR, this.o.connection);
    this.pool = postgresPool(config, context.log, postgresAddress(config));
  }

  protected async writeBatch(tuples: readonly Tuple[]): Promise<void> {
    const keys = [...new Map(tuples.map((t) => [keyOf([t.getValueByField(this.o.keyField)]), t.getValueByField(this.o.keyField)])).values()];
    const result = await this.pool!.query<Record<string, unknown>>(this.query, [keys]);
    const rowsByKey = new Map<string, Record<string, unknown>[]>();
    for (const row of result.rows) {
      const k = keyOf([row[this.o.keyColumn]]);
      const list = rowsByKey.get(k);
      if (list) list.push(row);
      else rowsByKey.set(k, [row]);
    }
    for (const t of tuples) {
      const rows = rowsByKey.get(keyOf([t.getValueByField(this.o.keyField)]));
      if (rows) for (const row of rows) this.collector.emit(this.valuesFor(t, row), { anchors: t });
      else if (this.o.missing === 'nulls') this.collector.emit(this.valuesFor(t, null), { anchors: t });
    }
  }

  private valuesFor(t: Tuple, row: Record<string, unknown> | null): unknown[] {
    return this.o.outputFields.map((f) => (this.o.columns.includes(f) ? (row?.[f] ?? null) : t.getValueByField(f)));
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    declarer.declare(this.o.outputFields);
  }

  protected async shutdown(): Promise<void> {
    await this.pool?.end();
  }
}
