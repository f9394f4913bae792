/**
 * Runs one bolt task: takes tuples from its queue while its downstream has
 * room, calls execute (awaiting a returned promise before the next tuple),
 * anchors emits into the ack tree, and turns a throw into a failed tuple.
 * Handles both Bolt (explicit ack/fail) and BasicBolt (ack on return).
 */
import { Bolt, BasicBolt, type BasicOutputCollector, type Values } from '../../topology-sdk/components.js';
import type { Tuple } from '../../topology-sdk/tuple.js';
import { RuntimeTuple } from './runtime-tuple.js';
import { Executor } from './executor.js';
import type { ExecutorHost, LocalAcker } from './executor-host.js';
import type { ComponentSettings } from '../worker-settings.js';
import { OutputRouter } from '../routing/output-router.js';
import { writeRandomId } from '../acking/ack-ids.js';
import { ACK, FAIL, RESET } from '../acking/ack-messages.js';
import { DEFAULT_STREAM } from '../../common/topology-def.js';
import { EmitError } from '../../common/errors.js';
import { isEmitOptions, readEmitArgs } from '../../topology-sdk/internal/emit-args.js';
import { TickSource, isTickTuple } from './tick-source.js';
import { HOLD_ACKS, type HoldingCollector } from '../../topology-sdk/internal/held-acks.js';
import { CompactHeldAcks, type HeldAckSink } from './compact-held-acks.js';
import { NO_TREE_START, treeStartOf } from '../transport/frame-tree-time.js';

export class BoltExecutor extends Executor {
  private readonly router: OutputRouter;
  private readonly basic: boolean;
  private prepared = false;
  /** By acker task: the acker when it runs in this process, else null (looked up once per acker; task ids are small). */
  private readonly localAckers: (LocalAcker | null | undefined)[] = [];
  /** Tick tuples into this task's queue, when its config asks for them (topology.tick.tuple.freq.secs). */
  private readonly ticks: TickSource | null;
  /** A stream's fields, to name a refused value's field. */
  private readonly fieldsOf = (stream: string): readonly string[] | undefined => this.router.fieldsOf(stream);

  constructor(
    host: ExecutorHost,
    component: string,
    task: number,
    settings: ComponentSettings,
    private readonly bolt: Bolt | BasicBolt,
  ) {
    super(host, component, task, settings);
    this.router = new OutputRouter(component, host, Math.random, task);
    this.downstream = this.router.allTargets();
    this.basic = bolt instanceof BasicBolt || !(bolt instanceof Bolt);
    this.ticks = settings.tick
      ? new TickSource(
          settings.tick,
          (t) => {
            this.queue.push(t);
            this.host.wake();
          },
          host.clock,
        )
      : null;
  }

  /** How a stateful bolt's held acks reach the ackers (compact-held-acks.ts). */
  private readonly heldAckSink: HeldAckSink = {
    ackerFor: (lo) => this.host.ackerFor(lo),
    ackRoot: (acker, lo, hi, valLo, valHi) => this.ackRoot(acker, lo, hi, valLo, valHi),
    failRoot: (acker, lo, hi) => this.failRoot(acker, lo, hi),
    counted: (acked, failed) => {
      this.metrics.acked += acked;
      this.metrics.failed += failed;
    },
  };

  readonly collector: HoldingCollector = {
    emit: (a: unknown, b?: unknown, c?: unknown): number[] => {
      // The options form first, read without a parse (the hot path); Storm's positional forms go through readEmitArgs.
      if (Array.isArray(a) && c === undefined) {
        if (b === undefined) return this.emit(DEFAULT_STREAM, a, undefined, null);
        if (isEmitOptions(b) && b.messageId === undefined && (b.stream === undefined || typeof b.stream === 'string')) return this.emit(b.stream ?? DEFAULT_STREAM, a, b.anchors, null);
      }
      const e = readEmitArgs('bolt', this.component, a, b, c);
      return this.emit(e.stream, e.values, e.anchors, null);
    },
    emitDirect: (task: number, a?: unknown, b?: unknown, c?: unknown): void => {
      const e = readEmitArgs('bolt', this.component, a, b, c, 'emitDirect');
      this.emit(e.stream, e.values, e.anchors, task);
    },
    // The Tuple a bolt hands back is one the runtime gave it: a RuntimeTuple under its read-only type.
    ack: (tuple: Tuple) => this.ack(tuple as RuntimeTuple),
    fail: (tuple: Tuple) => this.fail(tuple as RuntimeTuple),
    resetTimeout: (tuple: Tuple) => this.resetTimeout(tuple),
    reportError: (err: unknown) => this.reportError(err, 'bolt reported an error'),
    [HOLD_ACKS]: () => new CompactHeldAcks(this.heldAckSink),
  };

  async start(): Promise<void> {
    const conf = this.host.configOf(this.component);
    const ctx = this.host.contextFor(this.component, this.task);
    if (this.bolt instanceof Bolt) await this.bolt.prepare(conf, ctx, this.collector);
    else await (this.bolt as BasicBolt).prepare(conf, ctx);
    this.prepared = true;
    // Ticks from the end of prepare on, as Storm starts its tick timer once the executor is set up.
    this.ticks?.start();
    // Tuples from other workers may have queued while prepare ran (a GPU bolt's probe takes a while).
    this.host.wake();
  }

  async stop(): Promise<void> {
    this.ticks?.close();
    if (this.prepared) await this.bolt.cleanup();
  }

  override placementChanged(): void {
    super.placementChanged();
    this.router.updatePlacement();
  }

  ready(): boolean {
    // As in Storm, execute never runs before prepare has finished: peers may send as soon as this worker's port is bound.
    return this.prepared && !this.busy && this.queue.length > 0 && !this.congested();
  }

  runSlice(deadline: number): void {
    let n = 0;
    // One clock read per slice: a tuple that turns stale during the slice runs (the rule is a saving, not a promise).
    const stale = this.host.staleTuples;
    const cutoff = stale ? stale.cutoff() : -Infinity;
    // Stale drops are counted and logged once per slice: a healed link's backlog drops them by the thousand.
    let dropped = 0;
    let droppedStart = 0;
    let droppedSource = '';
    while (this.ready()) {
      const tuple = this.queue.shift()!;
      // Untracked tuples carry NO_TREE_START, above any cutoff: only a tracked tuple whose tree timed out is below.
      if (tuple.treeStart < cutoff) {
        dropped++;
        droppedStart = tuple.treeStart;
        droppedSource = tuple.sourceComponent;
        continue;
      }
      this.executeOne(tuple);
      // While executes are fast (the last timed one under 20 µs) a clock read costs more than the work between two:
      // check the deadline every 8 tuples then, after each one otherwise (docs/benchmarks.md, "Acking, second round").
      if (((++n & 7) === 0 || this.metrics.lastExecuteMs >= 0.02) && performance.now() >= deadline) break;
    }
    if (dropped > 0) {
      this.metrics.staleTuples += dropped;
      stale!.drop(dropped, droppedStart, { component: this.component, task: this.task, source: droppedSource });
    }
  }

  private executeOne(tuple: RuntimeTuple): void {
    const tick = isTickTuple(tuple);
    const started = tick || this.metrics.sampleExecute() ? performance.now() : -1;
    const done = (err: unknown): void => {
      if (tick) this.metrics.countTick(performance.now() - started);
      else this.metrics.countExecute(started < 0 ? -1 : performance.now() - started);
      if (err) {
        this.reportError(err, 'execute threw; failing the tuple', { stream: tuple.sourceStreamId, source: tuple.sourceComponent });
        this.fail(tuple);
      } else if (this.basic) {
        this.ack(tuple);
      }
    };
    if (this.basic) {
      const basic: BasicOutputCollector = {
        emit: (a: unknown, b?: unknown, c?: unknown): number[] => {
          if (Array.isArray(a) && b === undefined && c === undefined) return this.emit(DEFAULT_STREAM, a, tuple, null);
          const e = readEmitArgs('basic', this.component, a, b, c);
          return this.emit(e.stream, e.values, tuple, null);
        },
        emitDirect: (task: number, a?: unknown, b?: unknown, c?: unknown): void => {
          const e = readEmitArgs('basic', this.component, a, b, c, 'emitDirect');
          this.emit(e.stream, e.values, tuple, task);
        },
        resetTimeout: (t) => this.resetTimeout(t),
        reportError: (err) => this.reportError(err, 'bolt reported an error'),
      };
      this.invoke(() => (this.bolt as BasicBolt).execute(tuple, basic), done);
    } else {
      this.invoke(() => (this.bolt as Bolt).execute(tuple), done);
    }
  }

  private emit(stream: string, values: Values, a: Tuple | readonly Tuple[] | undefined, directTask: number | null): number[] {
    const wire = this.checkValues(stream, values, this.fieldsOf);
    const targets = this.router.targets(stream, values, directTask);
    this.metrics.emitted++;
    const anchors = (a === undefined ? [] : Array.isArray(a) ? a : [a]) as readonly RuntimeTuple[];
    // Anchors must be tuples the runtime gave this bolt (RuntimeTuples under their read-only type): anything else has no ack tree to join.
    for (let i = 0; i < anchors.length; i++) {
      if (!(anchors[i] instanceof RuntimeTuple)) throw new EmitError(`emit from "${this.component}" on stream "${stream}": anchor ${i} is not a tuple the bolt received`, this.component, stream);
    }
    if (this.router.unplaced !== null) {
      // A subscriber has no running task: an anchored tuple's trees could never complete, so they fail now (their
      // spouts replay) instead of at the timeout; an unanchored one still goes to the subscribers that run.
      this.countUnplaced(stream, this.router.unplaced);
      if (anchors.some((t) => t.anchors !== null && t.anchors.length > 0)) {
        for (const t of anchors) this.failTrees(t);
        return [];
      }
    }
    this.metrics.transferred += targets.length;
    // The new tuple's tree started when the oldest of its anchors' did.
    let treeStart = NO_TREE_START;
    for (let i = 0; i < anchors.length; i++) if (anchors[i]!.treeStart < treeStart) treeStart = anchors[i]!.treeStart;
    for (const t of targets) this.host.send(t, this.component, this.task, stream, values, anchorIds(anchors), wire, treeStart);
    return targets;
  }

  private ack(tuple: RuntimeTuple): void {
    if (isTickTuple(tuple)) return; // untracked, and counted apart: acking a tick is harmless
    this.metrics.acked++;
    const ids = tuple.anchors;
    if (!ids) return;
    for (let i = 0; i < ids.length; i += 4) {
      const acker = this.host.ackerFor(ids[i]!);
      if (acker === null) continue;
      // The tuple's edge XOR the edges of the tuples anchored to it, as halves (an XOR yields an int32: >>> 0).
      this.ackRoot(acker, ids[i]!, ids[i + 1]!, (ids[i + 2]! ^ tuple.ackLo) >>> 0, (ids[i + 3]! ^ tuple.ackHi) >>> 0);
    }
  }

  private fail(tuple: RuntimeTuple): void {
    if (isTickTuple(tuple)) return;
    this.metrics.failed++;
    this.failTrees(tuple);
  }

  /**
   * Storm's resetTimeout: a RESET per tree of the tuple to its acker, which keeps the tree and tells the spout to
   * restart its timeout. The tuple's tree start moves to now too, so what it is anchored to from here on is not taken
   * for stale by the receiving workers (fencing/stale-tuples.ts); tuples of the trees already sent keep theirs.
   */
  private resetTimeout(tuple: Tuple): void {
    if (!(tuple instanceof RuntimeTuple)) throw new EmitError(`resetTimeout from "${this.component}": the tuple is not one the bolt received`, this.component, tuple?.sourceStreamId ?? '');
    const ids = tuple.anchors;
    if (!ids || isTickTuple(tuple)) return;
    for (let i = 0; i < ids.length; i += 4) {
      const acker = this.host.ackerFor(ids[i]!);
      if (acker === null) continue;
      const local = this.localAcker(acker);
      if (local) local.resetLocal(ids[i]!, ids[i + 1]!);
      else this.host.sendAck(acker, this.task, RESET, ids[i]!, ids[i + 1]!, 0, 0);
    }
    tuple.treeStart = treeStartOf(this.host.clock ? this.host.clock.now() : Date.now());
  }

  /** Tells the ackers of every tree the tuple belongs to that it failed. */
  private failTrees(tuple: RuntimeTuple): void {
    const ids = tuple.anchors;
    if (!ids) return;
    for (let i = 0; i < ids.length; i += 4) {
      const acker = this.host.ackerFor(ids[i]!);
      if (acker !== null) this.failRoot(acker, ids[i]!, ids[i + 1]!);
    }
  }

  private ackRoot(acker: number, lo: number, hi: number, valLo: number, valHi: number): void {
    const local = this.localAcker(acker);
    if (local) local.ackLocal(lo, hi, valLo, valHi);
    else this.host.sendAck(acker, this.task, ACK, lo, hi, valLo, valHi);
  }

  private failRoot(acker: number, lo: number, hi: number): void {
    const local = this.localAcker(acker);
    if (local) local.failLocal(lo, hi);
    else this.host.sendAck(acker, this.task, FAIL, lo, hi, 0, 0);
  }

  /** The acker when it runs in this process: the ack is a call, not a tuple (see acking/acker-executor.ts). */
  private localAcker(acker: number): LocalAcker | null {
    let local = this.localAckers[acker];
    if (local === undefined) {
      local = this.host.localAcker(acker) ?? null;
      this.localAckers[acker] = local;
    }
    return local;
  }
}

/**
 * Ack-tree ids for one new tuple anchored to `anchors` (Storm's
 * BoltOutputCollector): one fresh edge id per anchor, XORed into the anchor's
 * ack value and into the new tuple's id for each of the anchor's roots. Ids as
 * halves (runtime-tuple.ts AnchorIds).
 */
const edge = [0, 0];
function anchorIds(anchors: readonly RuntimeTuple[]): number[] | null {
  let out: number[] | null = null;
  for (const a of anchors) {
    const ids = a.anchors;
    if (!ids || ids.length === 0) continue;
    writeRandomId(edge, 0);
    const edgeLo = edge[0]!;
    const edgeHi = edge[1]!;
    a.ackLo = (a.ackLo ^ edgeLo) >>> 0;
    a.ackHi = (a.ackHi ^ edgeHi) >>> 0;
    out ??= [];
    for (let i = 0; i < ids.length; i += 4) {
      const lo = ids[i]!;
      const hi = ids[i + 1]!;
      let j = 0;
      while (j < out.length && (out[j] !== lo || out[j + 1] !== hi)) j += 4;
      if (j < out.length) {
        out[j + 2] = (out[j + 2]! ^ edgeLo) >>> 0;
        out[j + 3] = (out[j + 3]! ^ edgeHi) >>> 0;
      } else {
        out.push(lo, hi, edgeLo, edgeHi);
      }
    }
  }
  return out;
}
