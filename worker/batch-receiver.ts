/**
 * Tuples arriving from other workers: the transport hands over each decoded
 * batch; each tuple is checked, given the fields its source declared on its
 * stream and queued at its executor, and load reports go to the load board.
 * Anything malformed, for an unknown task or on an undeclared stream is
 * counted, logged (rate-limited) and dropped (DESIGN §6: bad input never
 * kills a worker). When a batch fills queues, reading stops until they drain.
 */
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import type { Fields } from '../topology-sdk/fields.js';
import { RuntimeTuple } from './executor/runtime-tuple.js';
import type { Executor } from './executor/executor.js';
import { isSystemStream } from './acking/system-streams.js';
import { isWireTuple, type WireBatch } from './transport/wire-codec.js';
import { LOAD_STREAM } from './routing/load/load-message.js';
import type { WorkerLoad } from './routing/load/worker-load.js';
import type { RunLoop } from './run-loop.js';
import type { TaskTable } from './task-table.js';

export class BatchReceiver {
  /** Frames that did not decode (counted here; the transport drops them). */
  droppedFrames = 0;
  /** Tuples dropped: malformed, for an unknown task, on an undeclared stream, or a system tuple the task refused. */
  droppedTuples = 0;
  private readonly dropLog: RateLimitedLog;

  /** `executors`: this worker's, by task; `load`: the load board of load-aware groupings, null when the topology has none. */
  constructor(
    private readonly table: TaskTable,
    private readonly executors: ReadonlyMap<number, Executor>,
    private readonly loop: RunLoop,
    private readonly load: WorkerLoad | null,
    log: Logger,
  ) {
    this.dropLog = new RateLimitedLog(log);
  }

  /** A frame that did not decode. */
  onGarbage(): void {
    this.droppedFrames++;
  }

  /** Queues a batch's tuples; returns a promise when the transport must stop reading until full queues drain. */
  onBatch(batch: WireBatch): Promise<void> | void {
    const touched: Executor[] = [];
    // A batch's tuples mostly share (source task, stream): resolve the pair once per run of equal pairs, never per
    // tuple — a decoded stream name is a fresh string that each Map lookup would hash and compare again
    // (docs/benchmarks.md, "Acking, third round").
    let memoSrc = -1;
    let memoStream = '';
    let memoComponent = '';
    let memoFields: Fields | null = null;
    let memoSystem = false;
    for (const t of batch.tuples) {
      if (!isWireTuple(t)) {
        this.droppedTuples++;
        this.dropLog.warn({ from: batch.senderPort }, 'dropped a malformed tuple');
        continue;
      }
      const [dest, src, stream, values, anchors] = t;
      if (stream === LOAD_STREAM) {
        if (!this.load?.board.apply(values)) {
          this.droppedTuples++;
          this.dropLog.warn({ from: batch.senderPort }, 'dropped a malformed or unexpected load report');
        }
        continue;
      }
      const ex = this.executors.get(dest);
      if (!ex) {
        this.droppedTuples++;
        this.dropLog.warn({ dest, src, from: batch.senderPort }, 'dropped a tuple for an unknown task');
        continue;
      }
      if (src !== memoSrc || stream !== memoStream || memoFields === null) {
        const srcComponent = this.table.componentOf(src);
        if (srcComponent === undefined) {
          this.droppedTuples++;
          this.dropLog.warn({ dest, src, from: batch.senderPort }, 'dropped a tuple for an unknown task');
          continue;
        }
        memoFields = this.table.streamFields(srcComponent, stream) ?? null;
        if (memoFields === null) {
          this.droppedTuples++;
          this.dropLog.warn({ stream, src }, 'dropped a tuple on an undeclared stream');
          continue;
        }
        memoSrc = src;
        memoStream = stream;
        memoComponent = srcComponent;
        memoSystem = isSystemStream(stream);
      }
      const system = memoSystem;
      if (!ex.enqueue(new RuntimeTuple(values, memoFields, memoComponent, stream, src, anchors), system)) {
        this.droppedTuples++; // a system tuple of the wrong shape or for the wrong task (logged by the executor)
        continue;
      }
      if (!system) touched.push(ex);
    }
    this.loop.wake();
    const full = touched.filter((e) => e.queue.isFull());
    if (full.length === 0) return;
    // Stop reading from the network until these queues drain: the peers' sends then wait (ZeroMQ high-water mark).
    return this.loop.holdReceiver(full);
  }
}
