/**
 * Mean service time of one local task, in ms per tuple, as an exponentially
 * weighted moving average over refresh windows, so that a task whose speed
 * changes mid-run is seen to change within a few windows.
 *
 * It reads the executor's cumulative counters (tuples executed, busy ms —
 * execute time sampled as for capacity, or off-thread GPU kernel time where
 * that is larger), so the hot path pays nothing extra.
 */

/** Below this many executes in a window the sample is too noisy (busy time is sampled 1 in 8): keep accumulating. */
const MIN_EXECUTES = 16;
/** Weight of the newest window. */
const ALPHA = 0.3;

export class ServiceTimeEstimator {
  private mean: number | null = null;
  // The averaging window: grows until it holds MIN_EXECUTES executes.
  private windowExecuted = 0;
  private windowBusyMs = 0;
  // The previous update, for stall detection.
  private tickAt: number;
  private tickExecuted = 0;
  private tickBacklog = 0;
  private stalledMs = 0;

  constructor(now: number) {
    this.tickAt = now;
  }

  get serviceMs(): number | null {
    return this.mean;
  }

  /**
   * Folds in the cumulative counters read at `now`. `backlog` is the tuples
   * waiting or in service: a task that had work at two updates in a row and
   * finished nothing in between has a service time of at least that long,
   * however few samples it has (a stuck or suddenly slow task is seen).
   */
  update(now: number, executed: number, busyMs: number, backlog: number): void {
    if (executed === this.tickExecuted && backlog > 0 && this.tickBacklog > 0) {
      this.stalledMs += now - this.tickAt;
      if (this.mean === null || this.stalledMs > this.mean) this.mean = this.stalledMs;
    } else {
      this.stalledMs = 0;
    }
    this.tickAt = now;
    this.tickExecuted = executed;
    this.tickBacklog = backlog;

    const done = executed - this.windowExecuted;
    if (done < MIN_EXECUTES) return; // too few samples yet: let the window grow
    const sample = Math.max(0, busyMs - this.windowBusyMs) / done;
    this.mean = this.mean === null ? sample : this.mean + ALPHA * (sample - this.mean);
    this.windowExecuted = executed;
    this.windowBusyMs = busyMs;
  }
}
