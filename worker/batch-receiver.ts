/**
 * Frames arriving from other workers: the transport hands over each decoded
 * frame (transport/frame-reader.ts); its ack runs go to their acker or spout
 * tasks, each tuple is checked, given the fields its source declared on its
 * stream and queued at its executor, and load reports go to the load board.
 * Anything for an unknown task, on an undeclared stream, of the wrong kind
 * for its task or otherwise malformed is counted, logged (rate-limited) and
 * dropped (DESIGN §6: bad input never kills a worker). Tracked tuples of a
 * frame whose trees have timed out at their spouts are dropped as stale and
 * counted (fencing/stale-tuples.ts); the others take the frame's tree time
 * (transport/frame-tree-time.ts) with them. Backpressure status reports go to
 * the remote-overload board. A task whose queue fills is announced to the
 * peers (backpressure/local-overload.ts), which hold what they would send it;
 * reading goes on, so the other tasks' tuples and every ack keep arriving.
 * Only a task past its queue and the overflow limit
 * (`topology.executor.overflow.limit`, a last guard against a peer that does
 * not hold) stops reading until it drains.
 */
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import type { Fields } from '../topology-sdk/fields.js';
import { RuntimeTuple } from './executor/runtime-tuple.js';
import type { Executor } from './executor/executor.js';
import { isSystemStream } from './acking/system-streams.js';
import { ackArity, type AckKind } from './acking/ack-messages.js';
import type { Frame } from './transport/frame-reader.js';
import { LOAD_STREAM } from './routing/load/load-message.js';
import type { WorkerLoad } from './routing/load/worker-load.js';
import type { RunLoop } from './run-loop.js';
import type { TaskTable } from './task-table.js';
import type { EpochFence } from './fencing/epoch-fence.js';
import { BACKPRESSURE_STREAM } from './backpressure/backpressure-message.js';
import type { LocalOverload } from './backpressure/local-overload.js';
import type { RemoteOverload } from './backpressure/remote-overload.js';

/** The backpressure parts the receiver feeds: its own tasks' overload, the peers' statuses, and the last-guard bound. */
export interface ReceiverBackpressure {
  local: LocalOverload;
  remote: RemoteOverload;
  /** Tuples a task may hold past its queue's capacity before reading stops (`topology.executor.overflow.limit`). */
  overflowLimit: number;
}
import type { StaleTuples } from './fencing/stale-tuples.js';
import { treeStartFromField } from './transport/frame-tree-time.js';

export class BatchReceiver {
  /** Frames that did not decode (counted here; the transport drops them). */
  droppedFrames = 0;
  /** Tuples dropped: malformed, for an unknown task, on an undeclared stream, or a system tuple the task refused. */
  droppedTuples = 0;
  /** Frames of an older assignment from a worker that no longer holds a slot (fencing/epoch-fence.ts), dropped whole. */
  staleFrames = 0;
  /** Frames stamped with another topology (or not stamped), dropped whole. */
  foreignFrames = 0;
  /** Times reading stopped because a task went past its queue and the overflow limit (a peer not holding back). */
  linkPauses = 0;
  private readonly dropLog: RateLimitedLog;
  private readonly fenceLog: RateLimitedLog;

  /** `executors`: this worker's, by task; `load`: the load board of load-aware groupings, null when the topology has none. */
  constructor(
    private readonly table: TaskTable,
    private readonly executors: ReadonlyMap<number, Executor>,
    private readonly loop: RunLoop,
    private readonly load: WorkerLoad | null,
    private readonly bp: ReceiverBackpressure,
    log: Logger,
    private readonly fence: EpochFence,
    private readonly stale: StaleTuples,
  ) {
    this.dropLog = new RateLimitedLog(log);
    this.fenceLog = new RateLimitedLog(log);
  }

  /** A frame that did not decode. */
  onGarbage(): void {
    this.droppedFrames++;
  }

  /**
   * Queues a frame's ack runs and tuples. Returns a promise — the transport stops reading until it resolves — only
   * when a task went past its queue and the overflow limit; a task merely full is announced to the peers instead.
   */
  onBatch(f: Frame): Promise<void> | void {
    const verdict = this.fence.judge(f.stamp);
    if (verdict !== 'admit') {
      if (verdict === 'stale') this.staleFrames++;
      else this.foreignFrames++;
      const n = verdict === 'stale' ? this.staleFrames : this.foreignFrames;
      this.fenceLog.warn(
        { from: f.senderPort, epoch: f.stamp.epoch, tuples: f.tupleCount, acks: f.ackMessages, [verdict === 'stale' ? 'staleFrames' : 'foreignFrames']: n },
        verdict === 'stale' ? 'dropped a frame from a worker on an older assignment that no longer holds a slot (fenced)' : 'dropped a frame of another topology, or not stamped',
      );
      return;
    }
    if (f.ackDest.length > 0) this.acks(f);
    // One clock read per frame: when its trees started, and whether that is past the message timeout for all of them.
    const now = this.stale.now();
    const treeStart = treeStartFromField(f.treeTime, now);
    const staleTrees = treeStart < this.stale.cutoff(now);
    if (!staleTrees) this.stale.checkClock(treeStart, now, f.senderPort);
    let staleCount = 0;
    const touched: Executor[] = [];
    // A frame's tuples mostly share (source task, stream): resolve the pair once per run of equal pairs, never per
    // tuple (docs/benchmarks.md, "Acking, third round"); a frame's stream names are one string each, so comparing
    // them is comparing references.
    let memoSrc = -1;
    let memoStream = '';
    let memoComponent = '';
    let memoFields: Fields | null = null;
    const { dest: dests, src: srcs, anchors: counts, stream: streamIndex, ids, streams, values: valuesOf } = f;
    let w = 0;
    let overflowed = 0;
    for (let i = 0; i < f.tupleCount; i++) {
      const dest = dests[i]!;
      const src = srcs[i]!;
      const stream = streams[streamIndex[i]!]!;
      const pairs = counts[i]!;
      let anchors: number[] | null = null;
      if (pairs >= 0) {
        anchors = pairs === 1 ? [ids[w]!, ids[w + 1]!, ids[w + 2]!, ids[w + 3]!] : Array.from(ids.subarray(w, w + 4 * pairs));
        w += 4 * pairs;
      }
      const values = valuesOf[i];
      if (!Array.isArray(values)) {
        this.drop({ dest, src, from: f.senderPort }, 'dropped a malformed tuple (its values are not an array)');
        continue;
      }
      if (stream === BACKPRESSURE_STREAM) {
        if (!this.bp.remote.apply(values)) this.drop({ from: f.senderPort }, 'dropped a malformed backpressure status');
        continue;
      }
      if (stream === LOAD_STREAM) {
        if (!this.load?.board.apply(values)) this.drop({ from: f.senderPort }, 'dropped a malformed or unexpected load report');
        continue;
      }
      const ex = this.executors.get(dest);
      if (!ex || !ex.takesTuples) {
        this.drop({ dest, src, from: f.senderPort }, 'dropped a tuple for an unknown task');
        continue;
      }
      if (pairs >= 0 && staleTrees) {
        staleCount++;
        ex.metrics.staleTuples++;
        continue;
      }
      if (src !== memoSrc || stream !== memoStream || memoFields === null) {
        const srcComponent = this.table.componentOf(src);
        if (srcComponent === undefined) {
          this.drop({ dest, src, from: f.senderPort }, 'dropped a tuple for an unknown task');
          continue;
        }
        if (isSystemStream(stream)) {
          // The ack protocol travels in the frame's ack section, ticks never leave their worker: such a tuple was forged.
          this.drop({ dest, src, stream, from: f.senderPort }, 'dropped a tuple on a system stream');
          continue;
        }
        memoFields = this.table.streamFields(srcComponent, stream) ?? null;
        if (memoFields === null) {
          this.drop({ stream, src }, 'dropped a tuple on an undeclared stream');
          continue;
        }
        memoSrc = src;
        memoStream = stream;
        memoComponent = srcComponent;
      }
      const tuple = new RuntimeTuple(values, memoFields, memoComponent, stream, src, anchors);
      if (pairs >= 0) tuple.treeStart = treeStart;
      ex.enqueue(tuple);
      if (ex.queue.length > ex.queue.capacity) overflowed++;
      touched.push(ex);
    }
    if (staleCount > 0) this.stale.drop(staleCount, treeStart, { from: f.senderPort });
    this.loop.wake();
    this.bp.local.overflowTuples += overflowed;
    let over: Executor[] | null = null;
    for (let i = 0; i < touched.length; i++) {
      const ex = touched[i]!;
      // A frame mostly carries runs for one task: look at each run once.
      if (i + 1 < touched.length && touched[i + 1] === ex) continue;
      if (!ex.queue.isFull()) continue;
      this.bp.local.queued(ex);
      if (ex.queue.length >= ex.queue.capacity + this.bp.overflowLimit) (over ??= []).push(ex);
    }
    if (over === null) return;
    // The last guard: a peer kept sending a task it was told is overloaded. Stop reading until these queues drain.
    this.linkPauses++;
    this.dropLog.warn({ tasks: over.map((e) => e.task), limit: this.bp.overflowLimit }, 'a task went past its queue and topology.executor.overflow.limit; reading from the peers paused until it drains');
    return this.loop.holdReceiver(over);
  }

  /** The frame's ack runs, each to its task's ack queue (a run its task does not take is dropped and counted there). */
  private acks(f: Frame): void {
    let w = 0;
    for (let g = 0; g < f.ackDest.length; g++) {
      const kind = f.ackKind[g]! as AckKind;
      const end = w + f.ackCount[g]! * ackArity(kind);
      const words = f.ackWords.subarray(w, end);
      w = end;
      const dest = f.ackDest[g]!;
      const src = f.ackSrc[g]!;
      const ex = this.executors.get(dest);
      if (!ex || this.table.componentOf(src) === undefined) {
        this.drop({ dest, src, from: f.senderPort }, 'dropped ack messages for or from an unknown task');
        continue;
      }
      if (!ex.enqueueAcks({ kind, src, words })) this.droppedTuples++; // logged by the executor
    }
  }

  private drop(context: object, msg: string): void {
    this.droppedTuples++;
    this.dropLog.warn(context, msg);
  }
}
