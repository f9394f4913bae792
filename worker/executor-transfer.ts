/**
 * Tuples leaving an executor (Storm's ExecutorTransfer): into the queue of a
 * task in this worker, as a RuntimeTuple without encoding, or onto the link
 * towards the worker that holds the task; and whether a set of targets has
 * room (backpressure: a full local queue, or a link with too many tuples
 * waiting, holds the sender back).
 */
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import { RuntimeTuple, type AnchorIds } from './executor/runtime-tuple.js';
import type { Executor } from './executor/executor.js';
import { ackArity, type AckKind } from './acking/ack-messages.js';
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

  /** Delivers one data tuple: into a local queue, or onto the link towards the worker that holds `dest`. */
  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: AnchorIds, wire: unknown[] | null = null): void {
    const local = this.executors.get(dest);
    if (local) {
      local.enqueue(new RuntimeTuple(values, this.table.fieldsOf(srcComponent, stream), srcComponent, stream, srcTask, anchors));
      this.loop.wake();
      return;
    }
    const peer = this.peerOf(dest, stream);
    if (peer !== undefined) this.transport.sendTuple(peer, dest, srcTask, stream, wire ?? values, anchors);
  }

  /** Delivers one ack-protocol message; towards another worker it joins the open batch's run of its route and kind. */
  sendAck(dest: number, srcTask: number, kind: AckKind, rootLo: number, rootHi: number, valLo: number, valHi: number): void {
    if (this.executors.has(dest)) {
      const words = ackArity(kind) === 4 ? Uint32Array.of(rootLo, rootHi, valLo, valHi) : Uint32Array.of(rootLo, rootHi);
      this.sendAcks(dest, srcTask, kind, words);
      return;
    }
    const peer = this.peerOf(dest, kind);
    if (peer !== undefined) this.transport.sendAck(peer, dest, srcTask, kind, rootLo, rootHi, valLo, valHi);
  }

  /** Delivers a run of ack-protocol messages of one kind (ack-messages.ts). */
  sendAcks(dest: number, srcTask: number, kind: AckKind, words: Uint32Array): void {
    const local = this.executors.get(dest);
    if (local) {
      local.enqueueAcks({ kind, src: srcTask, words });
      this.loop.wake();
      return;
    }
    const peer = this.peerOf(dest, kind);
    if (peer !== undefined) this.transport.sendAcks(peer, dest, srcTask, kind, words);
  }

  /** The worker that holds `dest`; undefined (and the message dropped, counted) when none does: its spout replays. */
  private peerOf(dest: number, what: string | AckKind): string | undefined {
    const peer = this.table.workerOf(dest);
    if (peer === undefined) {
      this.dropped++;
      this.dropLog.warn({ dest, [typeof what === 'string' ? 'stream' : 'ackKind']: what }, 'no worker is assigned the destination task; dropping the tuple (its spout will replay it)');
    }
    return peer;
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
