/**
 * Mean service time of one local task, in ms per tuple, as an exponentially
 * weighted moving average over refresh windows, so that a task whose speed
 * changes mid-run is seen to change within a few windows.
 *
 * It reads the executor's cumulative counters (tuples executed, busy ms —
 * execute time sampled as for capacity, or off-thread GPU kernel time where
 * that is larger) and its backlog, so the hot path pays nothing extra.
 */

/** Below this many executes in a window the sample is too noisy (busy time is sampled 1 in 8): keep accumulating. */
const MIN_EXECUTES = 16;
/** Weight of the newest window. */
const ALPHA = 0.3;
/**
 * An idle task's estimate halves every this many ms. Two-choice sends nothing
 * to a task whose estimate is high, so without decay one bad moment (a stall
 * at start-up on a loaded machine) would starve that task for good: it would
 * never execute again, and its estimate would never be corrected. Decaying
 * lets it be tried again and re-measured; a truly slow task gets a probe now
 * and then, which is the price of noticing when it speeds up.
 */
const IDLE_HALF_LIFE_MS = 1000;

export class ServiceTimeEstimator {
  private mean: number | null = null;
  // The averaging window: grows until it holds MIN_EXECUTES executes.
  private windowExecuted = 0;
  private windowBusyMs = 0;
  // The previous update, for stall detection.
  private tickAt: number;
  private tickExecuted = 0;
  private tickBacklog = 0;
  /** How long the task has had work and finished nothing. */
  private stalledMs = 0;

  constructor(now: number) {
    this.tickAt = now;
  }

  get serviceMs(): number | null {
    return this.mean;
  }

  /**
   * Folds in the cumulative counters read at `now`. `backlog` is the tuples
   * waiting or in service. A task that had work at this update and the
   * previous one was busy in between, so its rate over that span is its
   * service time — exact, and available after a few tuples, where the
   * sampled busy time needs many. A task that had work at both updates and
   * finished nothing is at least as slow as the stall (a stuck or suddenly
   * slow task is seen). Otherwise the sampled busy time per execute is used,
   * once the window holds enough executes.
   */
  update(now: number, executed: number, busyMs: number, backlog: number): void {
    const saturated = backlog > 0 && this.tickBacklog > 0;
    const doneSinceTick = executed - this.tickExecuted;
    const span = now - this.tickAt;
    this.tickAt = now;
    this.tickExecuted = executed;
    this.tickBacklog = backlog;
    if (saturated && doneSinceTick === 0) {
      this.stalledMs += span;
      if (this.mean === null || this.stalledMs > this.mean) this.mean = this.stalledMs;
      return;
    }
    this.stalledMs = 0;
    if (backlog === 0 && doneSinceTick === 0) {
      if (this.mean !== null) this.mean *= Math.pow(0.5, span / IDLE_HALF_LIFE_MS);
      return;
    }
    if (saturated) {
      this.fold(span / doneSinceTick);
    } else {
      const done = executed - this.windowExecuted;
      if (done < MIN_EXECUTES) return; // too few samples yet: let the window grow
      this.fold(Math.max(0, busyMs - this.windowBusyMs) / done);
    }
    this.windowExecuted = executed;
    this.windowBusyMs = busyMs;
  }

  private fold(sample: number): void {
    this.mean = this.mean === null ? sample : this.mean + ALPHA * (sample - this.mean);
  }
}
