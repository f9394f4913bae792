/**
 * Tuples leaving an executor (Storm's ExecutorTransfer): into the queue of a
 * task in this worker, as a RuntimeTuple without encoding, or onto the link
 * towards the worker that holds the task; and whether a set of targets has
 * room (backpressure: a full local queue, a task in another worker that
 * announced itself overloaded, or a link with too many tuples waiting holds
 * the sender back).
 */
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import { RuntimeTuple, type AnchorIds } from './executor/runtime-tuple.js';
import type { Executor } from './executor/executor.js';
import { ackArity, type AckKind } from './acking/ack-messages.js';
import type { ZmqTransport } from './transport/zmq-transport.js';
import type { RunLoop } from './run-loop.js';
import type { TaskTable } from './task-table.js';
import type { RemoteOverload } from './backpressure/remote-overload.js';
import { NO_TREE_START } from './transport/frame-tree-time.js';

/** Where a task's tuples go: its executor in this worker, the key of the worker that holds it, or null when none does. */
type Route = Executor | string | null;

export class ExecutorTransfer {
  /** Tuples dropped on the way out: no worker holds the destination task. */
  dropped = 0;
  private readonly dropLog: RateLimitedLog;
  /**
   * Routes by task id, found once and kept until `routesChanged` (a new assignment, new executors): a send is then an
   * array read, not a look-up in the executors and then in the task table (task ids are small integers).
   */
  private routes: (Route | undefined)[] = [];

  /**
   * `executors`: this worker's, by task (call `routesChanged` when it changes).
   * `transferLimit`: tuples waiting towards one worker before its senders are held back (`topology.transfer.buffer.size`).
   */
  constructor(
    private readonly table: TaskTable,
    private readonly executors: ReadonlyMap<number, Executor>,
    private readonly transport: ZmqTransport,
    private readonly loop: RunLoop,
    private readonly transferLimit: number,
    private readonly remote: RemoteOverload,
    log: Logger,
  ) {
    this.dropLog = new RateLimitedLog(log);
  }

  /** The executors or the assignment changed: routes are found afresh. */
  routesChanged(): void {
    this.routes = [];
  }

  /**
   * Delivers one data tuple: into a local queue, or onto the link towards the worker that holds `dest`.
   * `treeStart`: RuntimeTuple.treeStart of the tuple sent.
   */
  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: AnchorIds, wire: unknown[] | null = null, treeStart = NO_TREE_START): void {
    const r = this.routeOf(dest);
    if (typeof r === 'string') {
      this.transport.sendTuple(r, dest, srcTask, stream, wire ?? values, anchors, treeStart);
    } else if (r !== null) {
      const t = new RuntimeTuple(values, this.table.fieldsOf(srcComponent, stream), srcComponent, stream, srcTask, anchors);
      t.treeStart = treeStart;
      r.enqueue(t);
      this.loop.wake();
    } else {
      this.drop(dest, stream);
    }
  }

  /** Delivers one ack-protocol message; towards another worker it joins the open batch's run of its route and kind. */
  sendAck(dest: number, srcTask: number, kind: AckKind, rootLo: number, rootHi: number, valLo: number, valHi: number): void {
    const r = this.routeOf(dest);
    if (typeof r === 'string') {
      this.transport.sendAck(r, dest, srcTask, kind, rootLo, rootHi, valLo, valHi);
    } else if (r !== null) {
      r.enqueueAcks({ kind, src: srcTask, words: ackArity(kind) === 4 ? Uint32Array.of(rootLo, rootHi, valLo, valHi) : Uint32Array.of(rootLo, rootHi) });
      this.loop.wake();
    } else {
      this.drop(dest, kind);
    }
  }

  /** Delivers a run of ack-protocol messages of one kind (ack-messages.ts). */
  sendAcks(dest: number, srcTask: number, kind: AckKind, words: Uint32Array): void {
    const r = this.routeOf(dest);
    if (typeof r === 'string') {
      this.transport.sendAcks(r, dest, srcTask, kind, words);
    } else if (r !== null) {
      r.enqueueAcks({ kind, src: srcTask, words });
      this.loop.wake();
    } else {
      this.drop(dest, kind);
    }
  }

  /** True when any of these tasks' queues is full (a remote one: its worker said it is overloaded), or the link towards the worker holding one is. */
  isCongested(targets: readonly number[]): boolean {
    for (const t of targets) {
      const r = this.routeOf(t);
      if (typeof r === 'string') {
        if (this.remote.holds(t) || this.transport.pendingTuples(r) >= this.transferLimit) {
          this.heldByPeer = true;
          return true;
        }
      } else if (r !== null && r.queue.isFull()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether an executor was held back for a task in another worker since the last call (the run loop asks after each
   * turn): while one is, this worker must not stop reading its link — the peer it waits for may be waiting for it.
   */
  takeHeldByPeer(): boolean {
    const held = this.heldByPeer;
    this.heldByPeer = false;
    return held;
  }

  private heldByPeer = false;

  private routeOf(task: number): Route {
    const r = this.routes[task];
    if (r !== undefined) return r;
    const found = this.executors.get(task) ?? this.table.workerOf(task) ?? null;
    this.routes[task] = found;
    return found;
  }

  /** No worker holds `dest`: the message is dropped and counted (its spout replays). */
  private drop(dest: number, what: string | AckKind): void {
    this.dropped++;
    this.dropLog.warn({ dest, [typeof what === 'string' ? 'stream' : 'ackKind']: what }, 'no worker is assigned the destination task; dropping the tuple (its spout will replay it)');
  }
}
