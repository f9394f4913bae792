/**
 * The base of hstorm's sink and lookup bolts: tuples are gathered into
 * batches (TupleBatcher: by size or time), each batch is written in one go by
 * the subclass (one transaction, one MULTI/EXEC, one lookup query), and its
 * tuples are acked only after the write committed — a failed write fails
 * them all, for their spouts to replay. Storm's JdbcInsertBolt and
 * AbstractRedisBolt ack per tuple inside execute; batching is where a
 * database round trip per tuple stops being the bottleneck.
 *
 * A write that fails for what one row holds (a subclass says so: `rowRejection`)
 * would fail its whole batch on every replay, for ever, and the good tuples
 * batched with it never get through. Such a batch is halved and each half
 * written again, down to the tuple the store refuses: the others commit and
 * are acked, only that one is rejected (`rejected`: failed, by default). A
 * batch of n with k such rows takes at most about 2·k·log2(n) more writes. A
 * failure that is not about a row (the server is down, the connection
 * dropped, a column is missing) fails the batch whole, as before.
 */
import { Bolt, type Conf, type Counter, type OutputCollector, type TopologyContext, type Tuple } from '../../topology-sdk/index.js';
import { reasonOf } from './broker-link.js';
import { realConnectorClock, type ConnectorClock } from './connector-clock.js';
import { ConnectorConfigError, ConnectorRejectedError, ConnectorWriteError } from './connector-errors.js';
import { TupleBatcher, type BatchOptions } from './tuple-batcher.js';

/** Why a store refused one row: its own code (PostgreSQL's SQLSTATE) and message. */
export interface RowRejection {
  code: string;
  message: string;
}

export abstract class BatchingBolt extends Bolt {
  protected collector!: OutputCollector;
  protected context!: TopologyContext;
  private batcher!: TupleBatcher<Tuple>;
  private written!: Counter;
  private batches!: Counter;
  private writeMs!: Counter;
  private failedBatches!: Counter;
  private rejectedRows!: Counter;

  protected constructor(
    protected readonly connectorName: string,
    private readonly batchOptions: BatchOptions,
    protected readonly clock: ConnectorClock = realConnectorClock,
  ) {
    super();
  }

  /** Sets up the client (a server that is down now must not fail prepare: the batches will fail and be replayed). */
  protected abstract open(conf: Conf, context: TopologyContext): void | Promise<void>;
  /** Writes one batch, throwing when it was not committed; lookups emit here, anchored to each tuple. */
  protected abstract writeBatch(tuples: readonly Tuple[]): Promise<void>;
  /** Closes the client. */
  protected abstract shutdown(): Promise<void>;

  /** Batches written at once at most; 1 unless a subclass knows when two may overlap. */
  protected maxWrites(): number {
    return 1;
  }

  /**
   * Whether the failed write's error is about what one row holds — then the batch is split to find it — or null when
   * it is not (the server, the connection, the schema): the batch fails whole. None is, unless a subclass knows.
   */
  protected rowRejection(_err: unknown): RowRejection | null {
    return null;
  }

  /** A tuple whose row the store refused, alone in its batch: reported and failed, unless a subclass sends it elsewhere. */
  protected rejected(tuple: Tuple, r: RowRejection): void {
    this.collector.reportError(new ConnectorRejectedError(this.connectorName, r.code, r.message, 'failed'));
    this.collector.fail(tuple);
  }

  /** Whether `next` may be written while `writing` are (asked only when maxWrites() > 1). */
  protected mayOverlap(_next: readonly Tuple[], _writing: readonly (readonly Tuple[])[]): boolean {
    return false;
  }

  override async prepare(conf: Conf, context: TopologyContext, collector: OutputCollector): Promise<void> {
    this.collector = collector;
    this.context = context;
    this.written = context.registerCounter('connector.tuples.written');
    // Mean batch size and write time follow from these: tuples.written ÷ batches, write.ms ÷ batches.
    this.batches = context.registerCounter('connector.batches');
    this.writeMs = context.registerCounter('connector.write.ms');
    this.failedBatches = context.registerCounter('connector.batches.failed');
    this.rejectedRows = context.registerCounter('connector.rows.rejected');
    this.batcher = new TupleBatcher<Tuple>(
      this.batchOptions,
      { write: (batch) => this.runBatch(batch), maxWrites: this.maxWrites(), mayOverlap: (next, writing) => this.mayOverlap(next, writing) },
      this.clock,
    );
    context.registerGauge('connector.waiting', () => this.batcher.waiting);
    await this.open(conf, context);
  }

  override execute(tuple: Tuple): Promise<void> | undefined {
    return this.batcher.add(tuple);
  }

  override async cleanup(): Promise<void> {
    await this.batcher?.flush();
    await this.shutdown();
  }

  private async runBatch(batch: Tuple[]): Promise<void> {
    const started = this.clock.now();
    try {
      await this.writeBatch(batch);
    } catch (err) {
      const rejection = this.rowRejection(err);
      if (rejection === null) {
        this.failedBatches.inc();
        this.collector.reportError(new ConnectorWriteError(this.connectorName, batch.length, reasonOf(err)));
        for (const t of batch) this.collector.fail(t);
      } else if (batch.length === 1) {
        this.rejectedRows.inc();
        this.rejected(batch[0]!, rejection);
      } else {
        // In order, one half after the other: a later write of a row must not overtake an earlier one.
        const half = Math.ceil(batch.length / 2);
        await this.runBatch(batch.slice(0, half));
        await this.runBatch(batch.slice(half));
      }
      return;
    }
    this.written.inc(batch.length);
    this.batches.inc();
    this.writeMs.inc(Math.round(this.clock.now() - started));
    for (const t of batch) this.collector.ack(t);
  }

  /**
   * Checks that every stream this bolt subscribes to declares `fields` (at prepare: a bolt learns its inputs only
   * from the topology), naming the option that asked for a missing one.
   */
  protected requireFields(option: string, fields: readonly string[]): void {
    const me = this.context.topologyDef.components.find((c) => c.id === this.context.componentId);
    for (const input of me?.inputs ?? []) {
      const source = this.context.topologyDef.components.find((c) => c.id === input.component);
      const declared = source?.streams.find((s) => s.id === input.stream)?.fields ?? [];
      const missing = fields.filter((f) => !declared.includes(f));
      if (missing.length > 0) {
        throw new ConnectorConfigError(
          this.connectorName,
          option,
          `field(s) ${missing.map((f) => `"${f}"`).join(', ')} not declared by "${input.component}" on stream "${input.stream}" (it declares: ${declared.join(', ')})`,
        );
      }
    }
  }
}
