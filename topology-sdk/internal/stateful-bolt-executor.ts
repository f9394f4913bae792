/**
 * Storm's StatefulBoltExecutor: the plain Bolt the builder puts in place of a
 * StatefulBolt (a bolt, not one of the worker's executors: the worker runs it
 * as any bolt). It owns the task's KeyValueState and plays the bolt's part of
 * the checkpoint protocol (checkpoint-protocol.ts), once a checkpoint has come
 * from every input task (checkpoint-barrier.ts):
 *
 * - PREPARE: `prePrepare`, then the state's changes are saved as the
 *   transaction's prepare; the inputs the bolt acked so far wait for its commit.
 * - COMMIT: `preCommit`, the store applies the prepare, and those inputs are
 *   acked at last — so a crash before the commit replays them.
 * - ROLLBACK: `preRollback`, every input acked since the last commit is failed
 *   (replayed) and the state goes back to the last commit.
 * - INITSTATE: the state is loaded and `initState` called (once); the tuples
 *   that arrived before it are executed, in order.
 *
 * Then the checkpoint goes on downstream, anchored, and is acked; a step that
 * throws (the store down, a hook) fails it, which sends the checkpoint spout
 * into recovery. Data tuples are executed only while the state is loaded:
 * before INITSTATE, and after a rollback whose reload failed, they wait.
 */
import { Bolt, type Conf, type MaybePromise, type OutputCollector } from '../components.js';
import type { TopologyContext } from '../context.js';
import type { OutputFieldsDeclarer } from '../output-declarer.js';
import type { Tuple } from '../tuple.js';
import type { KeyValueState } from '../state.js';
import { CHECKPOINT_STREAM } from '../../common/topology-def.js';
import { Histogram } from '../../common/histogram.js';
import type { StateMetrics } from '../../common/storm-base.js';
import { CheckpointBarrier } from './checkpoint-barrier.js';
import { isCheckpoint, readCheckpoint, type CheckpointAction } from './checkpoint-protocol.js';
import { StoreKeyValueState } from './store-key-value-state.js';
import { stateNamespace } from './state-namespace.js';
import { anchoringCollector } from './anchoring.js';
import { heldAcksOf, type HeldAcks } from './held-acks.js';

/** What the executor drives: a StatefulBolt, or a stateful windowed bolt's own executor. */
export interface StatefulComponent {
  prepare(conf: Conf, context: TopologyContext, collector: OutputCollector): MaybePromise<void>;
  /** Takes the executor's KeyValueState (typed by the bolt's own S). */
  initState(state: never): MaybePromise<void>;
  execute(tuple: Tuple): MaybePromise<void>;
  prePrepare(txid: number): MaybePromise<void>;
  preCommit(txid: number): MaybePromise<void>;
  preRollback(): MaybePromise<void>;
  cleanup(): MaybePromise<void>;
  declareOutputFields(declarer: OutputFieldsDeclarer): void;
}

/** Garbage on the checkpoint stream is logged for the first few, then once per this many. */
const GARBAGE_LOG_EVERY = 1000;

export class StatefulBoltExecutor extends Bolt {
  private out!: OutputCollector;
  private context!: TopologyContext;
  private provider: StateMetrics['provider'] = 'memory';
  private barrier!: CheckpointBarrier;
  private state!: StoreKeyValueState;
  /** initState has been called (once per task, as in Storm). */
  private initialized = false;
  /** The state in memory is the store's last commit plus the bolt's changes since (false before INITSTATE and after a failed reload). */
  private loaded = false;
  /** Data tuples that arrived while the state was not loaded. */
  private pending: Tuple[] = [];
  /** Inputs the bolt acked: those before the last prepare wait for its commit, the rest for the next prepare's. */
  private held!: HeldAcks;
  private prepareMs = 0;
  private lastCommittedTxid: number | null = null;
  private readonly hist = new Histogram();
  private readonly stats = { commits: 0, recoveries: 0, failures: 0, garbage: 0 };

  constructor(readonly bolt: StatefulComponent) {
    super();
  }

  override async prepare(conf: Conf, context: TopologyContext, collector: OutputCollector): Promise<void> {
    this.out = collector;
    this.context = context;
    this.barrier = new CheckpointBarrier(CheckpointBarrier.inputsOf(context));
    this.provider = context.stateStore.provider;
    this.state = new StoreKeyValueState(context.stateStore, stateNamespace(context), {
      component: context.componentId,
      task: context.taskId,
      onCorrupt: (err) => {
        context.log.error({ err }, err.message);
        collector.reportError(err);
      },
    });
    this.held = heldAcksOf(collector);
    context.reportMetrics('state', () => this.metrics());
    // The bolt's acks wait here for the commit; its emits must be anchored.
    await this.bolt.prepare(conf, context, anchoringCollector(context.componentId, collector, (t) => this.held.hold(t)));
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    this.bolt.declareOutputFields(declarer);
  }

  execute(tuple: Tuple): MaybePromise<void> {
    if (isCheckpoint(tuple)) return this.checkpoint(tuple);
    if (!this.loaded) {
      this.pending.push(tuple);
      return;
    }
    return this.bolt.execute(tuple);
  }

  override async cleanup(): Promise<void> {
    // Held acks are neither acked nor failed: their tuples time out and replay, as after a crash.
    await this.bolt.cleanup();
  }

  metrics(): StateMetrics {
    return {
      role: 'bolt',
      provider: this.provider,
      lastCommittedTxid: this.lastCommittedTxid,
      commits: this.stats.commits,
      checkpointMs: this.hist.stats(),
      checkpointHist: this.hist.toSparse(),
      checkpointSum: this.hist.sum,
      keys: this.loaded ? this.state.size : null,
      recoveries: this.stats.recoveries,
      failures: this.stats.failures,
      heldAcks: this.held.size,
      corruptEntries: this.state.corruptEntries,
      phase: null,
    };
  }

  // ── the checkpoint protocol ───────────────────────────────────────────────

  private checkpoint(tuple: Tuple): MaybePromise<void> {
    const cp = readCheckpoint(tuple);
    if (cp === null) {
      const n = ++this.stats.garbage;
      if (n <= 3 || n % GARBAGE_LOG_EVERY === 0) this.context.log.warn({ values: tuple.values, from: tuple.sourceTask, dropped: n }, 'dropped a checkpoint tuple that is not [txid, action]');
      this.out.ack(tuple);
      return;
    }
    if (this.barrier.arrive(cp.action, cp.txid, tuple.sourceTask) !== 'go') {
      this.out.ack(tuple);
      return;
    }
    return this.act(tuple, cp.action, cp.txid);
  }

  private async act(tuple: Tuple, action: CheckpointAction, txid: number): Promise<void> {
    try {
      switch (action) {
        case 'PREPARE':
          if (!this.loaded) {
            // A task that has not (re)loaded its state cannot prepare: failing the checkpoint starts recovery.
            this.out.fail(tuple);
            return;
          }
          await this.prepareTx(txid);
          break;
        case 'COMMIT':
          await this.commitTx(txid);
          break;
        case 'ROLLBACK':
          await this.rollbackTx();
          break;
        case 'INITSTATE':
          await this.initTx();
          break;
      }
    } catch (err) {
      this.stats.failures++;
      this.context.log.warn({ err, action, txid }, `checkpoint ${action} ${txid} failed; the checkpoint spout will recover and retry`);
      this.out.reportError(err);
      this.out.fail(tuple);
      return;
    }
    this.barrier.acted(action, txid);
    this.out.emit([txid, action], { stream: CHECKPOINT_STREAM, anchors: tuple });
    this.out.ack(tuple);
  }

  private async prepareTx(txid: number): Promise<void> {
    const started = performance.now();
    await this.bolt.prePrepare(txid);
    await this.state.prepare(txid);
    this.held.seal();
    this.prepareMs = performance.now() - started;
  }

  private async commitTx(txid: number): Promise<void> {
    const started = performance.now();
    await this.bolt.preCommit(txid);
    // Before the state is loaded (recovery rolling a prepare forward), only the store has the prepare.
    if (this.loaded) await this.state.commit(txid);
    else await this.state.commitStore(txid);
    this.held.ackSealed();
    this.lastCommittedTxid = txid;
    this.stats.commits++;
    this.hist.record(this.prepareMs + performance.now() - started);
    this.prepareMs = 0;
  }

  private async rollbackTx(): Promise<void> {
    await this.bolt.preRollback();
    // Fail first: whatever happens to the store, these inputs' updates are being discarded and must be replayed.
    this.held.failAll();
    if (!this.initialized) {
      await this.state.rollbackStore();
      return;
    }
    this.loaded = false; // until the reload succeeds, data tuples wait
    this.stats.recoveries++;
    await this.state.rollback();
    this.loaded = true;
  }

  private async initTx(): Promise<void> {
    if (!this.loaded) {
      await this.state.load();
      if (this.initialized) this.stats.recoveries++;
      this.loaded = true;
    }
    if (!this.initialized) {
      await this.bolt.initState(this.state as KeyValueState as never);
      this.initialized = true;
    }
    const waiting = this.pending;
    this.pending = [];
    for (const t of waiting) await this.executeHeld(t);
  }

  /** A tuple held before the state was loaded: executed as the worker would, a throw failing it. */
  private async executeHeld(t: Tuple): Promise<void> {
    try {
      await this.bolt.execute(t);
    } catch (err) {
      this.context.log.warn({ err, stream: t.sourceStreamId, source: t.sourceComponent }, 'execute threw; failing the tuple');
      this.out.reportError(err);
      this.out.fail(t);
    }
  }
}
