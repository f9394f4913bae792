/**
 * Storm's CheckpointSpout: the spout the builder adds to a topology with a
 * stateful bolt (`__checkpointspout`, one task). Every
 * `topology.state.checkpoint.interval.ms` it starts a transaction: it records
 * PREPARING in its own state, sends PREPARE down the checkpoint stream (every
 * bolt forwards it), and when the tuple tree is acked — every stateful bolt
 * has saved its prepare — records COMMITTING and sends COMMIT; when that is
 * acked, records COMMITTED. A checkpoint tuple that fails or times out starts
 * recovery (rollback or roll forward, then INITSTATE: checkpoint-protocol.ts).
 *
 * Its own state (the transaction) is in the same store, written before each
 * step is sent, so a restarted spout knows whether to roll back or forward.
 * It is loaded on the first nextTuple, not in open: a store that is down
 * delays checkpoints, it does not keep the worker from starting. Failed steps
 * are retried after a back-off (100 ms doubling to the interval, at most 2 s)
 * so that a Redis outage is not a tight loop.
 *
 * Where Storm's spout waits for its next nextTuple to send COMMIT, this one
 * sends it from the ack of the prepare, and it starts a checkpoint from its
 * own timer as well as from nextTuple: a spout's nextTuple waits while its
 * downstream queues are full — most of the time, in a topology running flat
 * out — and a checkpoint held back so holds back every ack of the stateful
 * bolts (a checkpoint tuple is one small tuple per bolt task: it never needs
 * holding back).
 */
import { Spout, type Conf, type FailReason, type SpoutOutputCollector } from '../components.js';
import type { TopologyContext } from '../context.js';
import type { OutputFieldsDeclarer } from '../output-declarer.js';
import { CHECKPOINT_FIELDS, CHECKPOINT_STREAM } from '../../common/topology-def.js';
import { Histogram } from '../../common/histogram.js';
import { StateCorruptError } from '../../common/errors.js';
import type { StateMetrics } from '../../common/storm-base.js';
import type { StateStore } from '../../common/state-store/state-store.js';
import { realIntervalClock, type IntervalClock } from '../../common/interval-clock.js';
import { INITIAL_TX, asTxState, nextAction, nextTxState, type CheckpointAction, type TxState } from './checkpoint-protocol.js';
import { decodeState, encodeState } from './state-codec.js';
import { stateNamespace } from './state-namespace.js';

/** Key of the transaction in the spout's namespace (Storm's `__state`). */
const TX_KEY = encodeState('__state');
const BACKOFF_START_MS = 100;
const BACKOFF_MAX_MS = 2000;
const DEFAULT_INTERVAL_MS = 1000;
const MIN_INTERVAL_MS = 100;
/** How often the spout's own timer looks whether a step is due, at most (a tenth of the interval when shorter). */
const TICK_MS = 50;

export interface CheckpointSpoutOptions {
  clock?: IntervalClock;
}

export class CheckpointSpout extends Spout {
  private readonly clock: IntervalClock;
  private collector!: SpoutOutputCollector;
  private context!: TopologyContext;
  private store!: StateStore;
  private ns = '';
  private intervalMs = DEFAULT_INTERVAL_MS;
  /** The transaction, once loaded from the store. */
  private tx: TxState | null = null;
  private recovering = true;
  /** The checkpoint tuple out now: at most one at a time. */
  private inFlight: { seq: number; txid: number; action: CheckpointAction } | null = null;
  private seq = 0;
  /** A step that writes the store is running. */
  private stepping = false;
  private lastCheckpointAt = -Infinity;
  private retryAt = 0;
  private backoffMs = 0;
  /** When the current transaction's PREPARE went out. */
  private preparedAt: number | null = null;
  /** Consecutive failures, for logging the first and the recovery from them. */
  private failing = 0;
  private stopTimer: (() => void) | null = null;
  private readonly hist = new Histogram();
  private readonly stats = { commits: 0, recoveries: 0, failures: 0 };

  constructor(options: CheckpointSpoutOptions = {}) {
    super();
    this.clock = options.clock ?? realIntervalClock;
  }

  override open(conf: Conf, context: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    this.context = context;
    this.store = context.stateStore;
    this.ns = stateNamespace(context);
    this.intervalMs = Math.max(MIN_INTERVAL_MS, conf['topology.state.checkpoint.interval.ms'] ?? DEFAULT_INTERVAL_MS);
    context.reportMetrics('state', () => this.metrics());
    context.log.info({ intervalMs: this.intervalMs, store: this.store.where }, 'checkpoint spout: checkpoints every interval');
    this.stopTimer = this.clock.every(Math.min(TICK_MS, Math.max(10, Math.floor(this.intervalMs / 10))), () => this.nextTuple());
  }

  override close(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }

  nextTuple(): void {
    if (this.stepping || this.inFlight !== null) return;
    const now = this.clock.now();
    if (now < this.retryAt) return;
    if (this.tx === null) {
      this.step(() => this.loadTx());
    } else if (this.recovering) {
      this.send(nextAction(this.tx, true));
    } else if (this.tx.phase !== 'COMMITTED' || now - this.lastCheckpointAt >= this.intervalMs) {
      this.step(() => this.beginCheckpoint(now));
    }
  }

  override ack(messageId: unknown): void {
    const sent = this.take(messageId);
    if (sent === null || this.tx === null) return;
    this.backoffMs = 0;
    if (this.failing > 0) {
      this.context.log.info({ failures: this.failing, txid: sent.txid, action: sent.action }, 'checkpoint spout: a checkpoint step succeeded again');
      this.failing = 0;
    }
    const tx = this.tx;
    if (this.recovering) {
      const next = nextTxState(tx, true);
      if (next.phase === tx.phase && next.txid === tx.txid) {
        this.recovering = false;
        this.context.log.info({ txid: tx.txid }, 'checkpoint spout: recovery complete; every stateful bolt has its last committed state');
      } else {
        this.step(() => this.save(next));
      }
      return;
    }
    const next = nextTxState(tx, false);
    this.step(async () => {
      await this.save(next);
      if (next.phase === 'COMMITTING') {
        this.send('COMMIT');
      } else if (next.phase === 'COMMITTED') {
        this.stats.commits++;
        if (this.preparedAt !== null) this.hist.record(this.clock.now() - this.preparedAt);
        this.preparedAt = null;
      }
    });
  }

  override fail(messageId: unknown, reason?: FailReason): void {
    const sent = this.take(messageId);
    if (sent === null) return;
    this.failed(`${sent.action} ${sent.txid} ${reason?.kind === 'timeout' ? `timed out after ${reason.afterMs} ms` : reason?.kind === 'unplaced' ? `could not reach "${reason.component}" (${reason.reason})` : 'failed in a bolt'}`);
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    declarer.declareStream(CHECKPOINT_STREAM, [...CHECKPOINT_FIELDS]);
  }

  metrics(): StateMetrics {
    const tx = this.tx;
    return {
      role: 'checkpoint',
      provider: this.store?.provider ?? 'memory',
      lastCommittedTxid: tx === null ? null : tx.phase === 'COMMITTED' ? tx.txid : tx.txid - 1,
      commits: this.stats.commits,
      checkpointMs: this.hist.stats(),
      checkpointHist: this.hist.toSparse(),
      checkpointSum: this.hist.sum,
      keys: null,
      recoveries: this.stats.recoveries,
      failures: this.stats.failures,
      heldAcks: 0,
      corruptEntries: 0,
      phase: tx === null ? 'loading' : `${this.recovering ? 'recovering: ' : ''}${this.inFlight ? `${this.inFlight.action} ${this.inFlight.txid}` : `${tx.phase} ${tx.txid}`}`,
    };
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private async loadTx(): Promise<void> {
    const [bytes] = await this.store.get(this.ns, [TX_KEY]);
    let tx: TxState | null = null;
    if (bytes) {
      try {
        tx = asTxState(decodeState(bytes));
      } catch {
        tx = null;
      }
      if (tx === null) {
        const where = this.store.locate(this.ns, TX_KEY);
        this.collector.reportError(new StateCorruptError(`checkpoint spout: ${where} does not hold a transaction; starting over from transaction ${INITIAL_TX.txid}`, where, this.context.componentId, this.context.taskId));
      }
    }
    if (tx === null) await this.save(INITIAL_TX);
    else this.tx = tx;
    this.stats.recoveries++;
    this.context.log.info({ txid: this.tx!.txid, phase: this.tx!.phase }, 'checkpoint spout: starting recovery from the stored transaction');
  }

  private async beginCheckpoint(now: number): Promise<void> {
    if (this.tx!.phase === 'COMMITTED') {
      await this.save(nextTxState(this.tx!, false));
      this.lastCheckpointAt = now;
    }
    this.send(nextAction(this.tx!, false));
  }

  private async save(tx: TxState): Promise<void> {
    await this.store.write(this.ns, [[TX_KEY, encodeState(tx)]]);
    this.tx = tx;
  }

  private send(action: CheckpointAction): void {
    const txid = this.tx!.txid;
    const seq = ++this.seq;
    this.inFlight = { seq, txid, action };
    if (action === 'PREPARE' && this.preparedAt === null) this.preparedAt = this.clock.now();
    this.collector.emit([txid, action], { stream: CHECKPOINT_STREAM, messageId: seq });
  }

  /** The in-flight step `messageId` names, now done; null for anything else (a late ack of an earlier tuple). */
  private take(messageId: unknown): { txid: number; action: CheckpointAction } | null {
    const f = this.inFlight;
    if (f === null || messageId !== f.seq) return null;
    this.inFlight = null;
    return f;
  }

  /** Runs a step that writes the store; a failure goes to recovery after the back-off. */
  private step(fn: () => Promise<void>): void {
    this.stepping = true;
    fn()
      .catch((err: unknown) => this.failed(`a state store call failed: ${(err as Error)?.message ?? String(err)}`, err))
      .finally(() => {
        this.stepping = false;
      });
  }

  private failed(what: string, err?: unknown): void {
    this.stats.failures++;
    if (!this.recovering && this.tx !== null) this.stats.recoveries++;
    this.recovering = true;
    this.preparedAt = null;
    this.backoffMs = Math.min(BACKOFF_MAX_MS, Math.max(BACKOFF_START_MS, this.backoffMs * 2), Math.max(BACKOFF_START_MS, this.intervalMs));
    this.retryAt = this.clock.now() + this.backoffMs;
    if (this.failing++ === 0) {
      this.context.log.warn({ err, retryInMs: this.backoffMs }, `checkpoint spout: ${what}; recovering (rolling back or forward, then INITSTATE), retried until it succeeds`);
      if (err !== undefined) this.collector.reportError(err);
    }
  }
}
