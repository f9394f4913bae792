/**
 * The worker's single run loop: one turn gives each ready executor a slice of
 * at most SLICE_MS, so no task starves the others and timers, socket I/O and
 * heartbeats still run between turns. After each turn it lets the worker
 * see which queues filled or drained (per-task backpressure,
 * backpressure/local-overload.ts), and it holds the network receiver in the
 * one case reading must stop: a task past its overflow limit.
 */
import type { Executor } from './executor/executor.js';

/** Longest a single executor runs before the loop moves on (keeps timers, I/O and heartbeats fed). */
const SLICE_MS = 2;

export class RunLoop {
  private scheduled = false;
  private receiveWaiter: { resolve: () => void; tasks: Executor[] } | null = null;

  /**
   * `executors` is read on every turn: executors added to it later are driven too.
   * `onIdle` runs after a turn that leaves no executor ready: the worker seals its partial transfer batches
   * there, so the last tuples of a burst leave now instead of after topology.batch.flush.interval.millis.
   * `afterTurn` runs after every turn, before onIdle: the worker announces queues that filled or drained there.
   */
  constructor(
    private readonly executors: readonly Executor[],
    private readonly onIdle: () => void = () => {},
    private readonly afterTurn: () => void = () => {},
  ) {}

  /** Asks for another turn (at most one is pending). */
  wake(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  /**
   * Stops reading from the network until these queues drain below half: the
   * returned promise resolves then, and the peers' sends wait meanwhile
   * (ZeroMQ high-water mark). Only the last guard of batch-receiver.ts uses it.
   */
  holdReceiver(full: Executor[]): Promise<void> {
    return new Promise<void>((resolve) => {
      this.receiveWaiter = { resolve, tasks: full };
    });
  }

  private readonly run = (): void => {
    this.scheduled = false;
    let more = false;
    for (const ex of this.executors) {
      if (ex.ready()) ex.runSlice(performance.now() + SLICE_MS);
      if (ex.ready()) more = true;
    }
    this.afterTurn();
    this.releaseReceiver();
    if (more) this.wake();
    else this.onIdle();
  };

  private releaseReceiver(): void {
    const w = this.receiveWaiter;
    if (w && w.tasks.every((e) => e.queue.length < e.queue.capacity / 2)) {
      this.receiveWaiter = null;
      w.resolve();
    }
  }
}
