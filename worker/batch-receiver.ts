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
 * the remote-overload board. Tuples that find their task's queue full are
 * parked as their frames (backpressure/parked-tuples.ts) and move into the
 * queue as it makes room. When every task of the worker is full, reading
 * stops until one drains — the peers are held by the link — unless an
 * executor of this worker waits for a peer, where stopping could close a
 * circle of workers each waiting for the next. Otherwise reading goes on, so
 * the other tasks' tuples and every ack keep arriving, and a full task is
 * announced to the peers (backpressure/local-overload.ts), which hold what
 * they would send it. A task past the overflow limit
 * (`topology.executor.overflow.limit`, a last guard against a peer that does
 * not hold) stops reading either way.
 * docs/architecture.md, "Backpressure between workers".
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
  /** Times reading stopped because a task's queue was full (lifted when it drains, or when this worker waits for a peer). */
  readPauses = 0;
  private readonly dropLog: RateLimitedLog;
  private readonly fenceLog: RateLimitedLog;
  /** Executors with parked tuples (resumeParked's work list). */
  private readonly parkedAt: Executor[] = [];
  /** Executors a frame left full or parked at, while it is dispatched (noteFilled's). */
  private readonly filled: Executor[] = [];

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
   * Queues a frame's ack runs and tuples. A tuple for a task whose queue is full, or that has tuples parked already,
   * is parked (backpressure/parked-tuples.ts); a frame whose tuples are all parked keeps its values as bytes. Returns
   * a promise — the transport stops reading until it resolves — when the frame filled a task (noteFilled says when).
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
    // The frame's values are needed now unless all its tuples are parked: unpacked before anything of the frame is
    // taken, so that a frame whose values do not decode (a CodecError) is dropped whole by the transport, acks too.
    if (f.valuesDeferred && !this.parksWhole(f)) void f.values;
    if (f.ackDest.length > 0) this.acks(f);
    if (f.tupleCount > 0) {
      const now = this.stale.now();
      const treeStart = treeStartFromField(f.treeTime, now);
      if (treeStart >= this.stale.cutoff(now)) this.stale.checkClock(treeStart, now, f.senderPort);
      this.dispatch(f, null, 0, 0);
    }
    this.loop.wake();
    return this.noteFilled();
  }

  /**
   * Moves parked tuples into their tasks' queues while the queues have room (after each run-loop turn); true when
   * any moved, so the loop runs again.
   */
  resumeParked(): boolean {
    if (this.parkedAt.length === 0) return false;
    let moved = false;
    let keep = 0;
    for (const ex of this.parkedAt) {
      // A task gone with a new assignment takes its parked tuples with it, as its queue.
      if (this.executors.get(ex.task) !== ex) {
        ex.parked.clear();
        continue;
      }
      while (!ex.parked.isEmpty && !ex.queue.isFull()) {
        const p = ex.parked.peek()!;
        const before = ex.queue.length;
        this.dispatch(p.frame, ex, p.next, p.word);
        if (ex.queue.length > before) moved = true;
      }
      if (!ex.parked.isEmpty) this.parkedAt[keep++] = ex;
    }
    this.parkedAt.length = keep;
    return moved;
  }

  /** Whether every tuple of the frame goes to a task that parks it (so its values can stay bytes for now). */
  private parksWhole(f: Frame): boolean {
    if (f.tupleCount === 0) return false;
    for (const name of f.streams) if (name === BACKPRESSURE_STREAM || name === LOAD_STREAM) return false;
    let last = -1;
    for (let i = 0; i < f.tupleCount; i++) {
      const dest = f.dest[i]!;
      if (dest === last) continue;
      const ex = this.executors.get(dest);
      if (!ex || !ex.takesTuples || (ex.parked.isEmpty && !ex.queue.isFull())) return false;
      last = dest;
    }
    return true;
  }

  /**
   * The frame's tuples from `from` (anchor ids from word `word`): each checked and queued at its task, or parked
   * behind it. `only`: resuming that task's parked tuples — the others of the frame were taken when it arrived; it
   * stops where the task's queue fills and keeps its place in the frame.
   */
  private dispatch(f: Frame, only: Executor | null, from: number, word: number): void {
    // One clock read per frame: when its trees started, and whether that is past the message timeout for all of them
    // (judged when the tuples are queued: a parked tuple may have waited).
    const now = this.stale.now();
    const treeStart = treeStartFromField(f.treeTime, now);
    const staleTrees = treeStart < this.stale.cutoff(now);
    let staleCount = 0;
    let taken = 0;
    // A frame's tuples mostly share (source task, stream): resolve the pair once per run of equal pairs, never per
    // tuple (docs/benchmarks.md, "Acking, third round"); a frame's stream names are one string each, so comparing
    // them is comparing references.
    let memoSrc = -1;
    let memoStream = '';
    let memoComponent = '';
    let memoFields: Fields | null = null;
    let valuesOf: readonly unknown[] | null = null;
    let overflowed = 0;
    const { dest: dests, src: srcs, anchors: counts, stream: streamIndex, ids, streams } = f;
    let w = word;
    // Where a resumed task's queue filled: its parked tuples wait from there (-1: the frame's tuples for it all taken).
    let stopAt = -1;
    let stopWord = 0;
    for (let i = from; i < f.tupleCount; i++) {
      const dest = dests[i]!;
      const pairs = counts[i]!;
      const at = w;
      if (pairs > 0) w += 4 * pairs;
      if (only !== null && dest !== only.task) continue;
      const stream = streams[streamIndex[i]!]!;
      const src = srcs[i]!;
      if (stream === BACKPRESSURE_STREAM || stream === LOAD_STREAM) {
        if (only !== null) continue; // applied when the frame arrived
        const values = (valuesOf ??= f.values)[i];
        if (stream === BACKPRESSURE_STREAM) {
          if (!Array.isArray(values) || !this.bp.remote.apply(values)) this.drop({ from: f.senderPort }, 'dropped a malformed backpressure status');
        } else if (!Array.isArray(values) || !this.load?.board.apply(values)) {
          this.drop({ from: f.senderPort }, 'dropped a malformed or unexpected load report');
        }
        continue;
      }
      const ex = only ?? this.executors.get(dest);
      if (!ex || !ex.takesTuples) {
        this.drop({ dest, src, from: f.senderPort }, 'dropped a tuple for an unknown task');
        continue;
      }
      if (only !== null) {
        if (ex.queue.isFull()) {
          stopAt = i;
          stopWord = at;
          break;
        }
        taken++;
      } else if (!ex.parked.isEmpty || ex.queue.isFull()) {
        if (ex.parked.lastFrame() !== f) {
          // Its first tuple of this frame parked: one entry per frame and task, and one note for noteFilled.
          ex.parked.park(f, i, at);
          if (ex.parked.tuples === 0) this.parkedAt.push(ex);
          this.filled.push(ex);
        }
        ex.parked.tuples++;
        overflowed++;
        continue;
      }
      let values: unknown;
      try {
        values = (valuesOf ??= f.values)[i];
      } catch (err) {
        // A parked frame's values, unpacked only now, did not decode: its tuples for this task are dropped.
        if (only === null) throw err;
        this.dropParked(f, only, i, taken - 1, err);
        return;
      }
      if (!Array.isArray(values)) {
        this.drop({ dest, src, from: f.senderPort }, 'dropped a malformed tuple (its values are not an array)');
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
      let anchors: number[] | null = null;
      if (pairs >= 0) anchors = pairs === 1 ? [ids[at]!, ids[at + 1]!, ids[at + 2]!, ids[at + 3]!] : Array.from(ids.subarray(at, at + 4 * pairs));
      const tuple = new RuntimeTuple(values, memoFields, memoComponent, stream, src, anchors);
      if (pairs >= 0) tuple.treeStart = treeStart;
      ex.enqueue(tuple);
      if (only === null && ex.queue.isFull()) this.filled.push(ex);
    }
    if (only !== null) {
      if (stopAt < 0) only.parked.finished(taken);
      else only.parked.stopped(stopAt, stopWord, taken);
    }
    this.bp.local.overflowTuples += overflowed;
    if (staleCount > 0) this.stale.drop(staleCount, treeStart, { from: f.senderPort });
  }

  /** A parked frame's values did not decode when its tuples for `ex` were resumed at tuple `i`: drops the rest. */
  private dropParked(f: Frame, ex: Executor, i: number, taken: number, err: unknown): void {
    let dropped = 0;
    for (let k = i; k < f.tupleCount; k++) if (f.dest[k] === ex.task) dropped++;
    this.droppedTuples += dropped;
    this.dropLog.warn({ err: (err as Error).message, from: f.senderPort, task: ex.task, tuples: dropped }, "dropped a parked frame's tuples: its values did not decode");
    ex.parked.finished(taken + dropped);
  }

  /**
   * Tasks this frame filled (or parked tuples at). When every task of this worker is full and none of its executors is
   * held back for a peer, reading stops until one drains below half: the peers are held by the link. Otherwise the
   * tasks are announced to the peers (local-overload.ts), which hold what they would send them, and reading goes on —
   * stopping would keep the other tasks' tuples and the acks waiting, and while an executor waits for a peer it could
   * close a circle of workers each waiting for the next to read. The last guard stops reading either way: a task past
   * its queue and the overflow limit, a peer that did not hold back.
   */
  private noteFilled(): Promise<void> | void {
    if (this.filled.length === 0) return;
    let over: Executor[] | null = null;
    let full: Executor[] | null = null;
    let last: Executor | null = null;
    for (const ex of this.filled) {
      // A frame mostly carries runs for one task: look at each run once.
      if (ex === last) continue;
      last = ex;
      this.bp.local.noteOverflow(ex);
      if (ex.parked.tuples >= this.bp.overflowLimit) {
        if (!over?.includes(ex)) (over ??= []).push(ex);
      } else if (!full?.includes(ex)) (full ??= []).push(ex);
    }
    this.filled.length = 0;
    if (over !== null) {
      for (const ex of over) this.bp.local.queued(ex);
      this.linkPauses++;
      this.dropLog.warn({ tasks: over.map((e) => e.task), limit: this.bp.overflowLimit }, 'a task went past its queue and topology.executor.overflow.limit; reading from the peers paused until it drains');
      return this.loop.holdReceiver(over, 'overflow');
    }
    if (full === null) return;
    if (this.loop.heldByPeer || !this.nothingTakesMore()) {
      for (const ex of full) this.bp.local.queued(ex);
      return;
    }
    this.readPauses++;
    return this.loop.holdReceiver([...this.executors.values()], 'full');
  }

  /**
   * Whether nothing this worker could read now would be taken: every task that takes tuples is full, and no spout or
   * acker waits for acks. Reading on then only parks; stopping costs the other tasks nothing.
   */
  private nothingTakesMore(): boolean {
    for (const ex of this.executors.values()) {
      if (!ex.takesTuples || ex.pendingInput < ex.queue.capacity) return false;
    }
    return true;
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
