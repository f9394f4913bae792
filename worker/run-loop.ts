/**
 * The worker's single run loop: one turn gives each ready executor a slice of
 * at most SLICE_MS, so no task starves the others and timers, socket I/O and
 * heartbeats still run between turns. After each turn it lets the worker
 * refill queues from their parked tuples and see which queues filled or
 * drained (per-task backpressure, worker/backpressure/), and it holds the
 * network receiver in the one case reading must stop: a task past its
 * overflow limit.
 */
import type { Executor } from './executor/executor.js';

/** Longest a single executor runs before the loop moves on (keeps timers, I/O and heartbeats fed). */
const SLICE_MS = 2;

/** Why reading stopped: a task full (lifted as soon as this worker is held by a peer) or past its overflow limit. */
export type ReadPause = 'full' | 'overflow';

export class RunLoop {
  private scheduled = false;
  private receiveWaiter: { resolve: () => void; tasks: Executor[]; why: ReadPause } | null = null;
  /** An executor was held back for a task in another worker during the last turn (see heldByPeer). */
  private peerHeld = false;

  /**
   * `executors` is read on every turn: executors added to it later are driven too.
   * `onIdle` runs after a turn that leaves no executor ready: the worker seals its partial transfer batches
   * there, so the last tuples of a burst leave now instead of after topology.batch.flush.interval.millis.
   * `afterTurn` runs after every turn, before onIdle: the worker moves parked tuples into queues that have room and
   * announces queues that filled or drained there; it returns true when it gave an executor work (another turn).
   * `takeHeldByPeer` says, after each turn, whether an executor was held back for a task in another worker since
   * the last call (executor-transfer.ts).
   */
  constructor(
    private readonly executors: readonly Executor[],
    private readonly onIdle: () => void = () => {},
    private readonly afterTurn: () => boolean = () => false,
    private readonly takeHeldByPeer: () => boolean = () => false,
  ) {}

  /**
   * Whether an executor of this worker was held back for a task in another worker in the last turn. Stopping to read
   * then could close a circle — that peer may be waiting for this worker to read — so the receiver keeps reading.
   */
  get heldByPeer(): boolean {
    return this.peerHeld;
  }

  /** Asks for another turn (at most one is pending). */
  wake(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  /**
   * Stops reading from the network until these tasks' queues drain below half — for 'full', until one of them does or
   * an executor of this worker is held back for a peer; for 'overflow', until all of them do. The returned promise
   * resolves then, and the peers' sends wait meanwhile (ZeroMQ high-water mark, then their transfer buffers).
   */
  holdReceiver(full: Executor[], why: ReadPause): Promise<void> {
    return new Promise<void>((resolve) => {
      this.receiveWaiter = { resolve, tasks: full, why };
    });
  }

  private readonly run = (): void => {
    this.scheduled = false;
    let more = false;
    for (const ex of this.executors) {
      if (ex.ready()) ex.runSlice(performance.now() + SLICE_MS);
      if (ex.ready()) more = true;
    }
    this.peerHeld = this.takeHeldByPeer();
    if (this.afterTurn()) more = true;
    this.releaseReceiver();
    if (more) this.wake();
    else this.onIdle();
  };

  private releaseReceiver(): void {
    const w = this.receiveWaiter;
    if (!w) return;
    const drained = (e: Executor) => e.pendingInput < e.queue.capacity / 2;
    // A pause for full tasks ends when one of them can take again, or when this worker waits for a peer; a pause past
    // the overflow limit when every task past it drained.
    if (w.why === 'full' ? this.peerHeld || w.tasks.some(drained) : w.tasks.every(drained)) {
      this.receiveWaiter = null;
      w.resolve();
    }
  }
}
