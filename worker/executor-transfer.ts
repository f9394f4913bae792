/**
 * Tuples leaving an executor (Storm's ExecutorTransfer): into the queue of a
 * task in this worker, as a RuntimeTuple without encoding, or onto the link
 * towards the worker that holds the task; and whether a set of targets has
 * room (backpressure: a full local queue, or a link with too many tuples
 * waiting, holds the sender back).
 */
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import { RuntimeTuple } from './executor/runtime-tuple.js';
import type { Executor } from './executor/executor.js';
import { isSystemStream } from './acking/system-streams.js';
import type { ZmqTransport } from './transport/zmq-transport.js';
import type { RunLoop } from './run-loop.js';
import type { TaskTable } from './task-table.js';

export class ExecutorTransfer {
  /** Tuples dropped on the way out: no worker holds the destination task. */
  dropped = 0;
  private readonly dropLog: RateLimitedLog;

  /**
   * `executors`: this worker's, by task (read at each send: executors built later are found).
   * `transferLimit`: tuples waiting towards one worker before its senders are held back (`topology.transfer.buffer.size`).
   */
  constructor(
    private readonly table: TaskTable,
    private readonly executors: ReadonlyMap<number, Executor>,
    private readonly transport: ZmqTransport,
    private readonly loop: RunLoop,
    private readonly transferLimit: number,
    log: Logger,
  ) {
    this.dropLog = new RateLimitedLog(log);
  }

  /** Delivers one tuple; an ack-protocol tuple may merge into a tuple of the open batch (transport/batch-builder.ts). */
  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: bigint[] | null, wire: unknown[] | null = null): void {
    const local = this.executors.get(dest);
    if (local) {
      local.enqueue(new RuntimeTuple(values, this.table.fieldsOf(srcComponent, stream), srcComponent, stream, srcTask, anchors), isSystemStream(stream));
      this.loop.wake();
      return;
    }
    const peer = this.table.workerOf(dest);
    if (peer === undefined) {
      this.dropped++;
      this.dropLog.warn({ dest, stream }, 'no worker is assigned the destination task; dropping the tuple (its spout will replay it)');
      return;
    }
    this.transport.send(peer, [dest, srcTask, stream, wire ?? values, anchors], isSystemStream(stream));
  }

  /** True when any of these tasks' queues, or the link towards the worker holding one, is full. */
  isCongested(targets: readonly number[]): boolean {
    for (const t of targets) {
      const local = this.executors.get(t);
      if (local) {
        if (local.queue.isFull()) return true;
      } else {
        const peer = this.table.workerOf(t);
        if (peer !== undefined && this.transport.pendingTuples(peer) >= this.transferLimit) return true;
      }
    }
    return false;
  }
}
