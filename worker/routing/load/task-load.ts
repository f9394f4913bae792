/**
 * The load signal the load-based groupings (two-choice, load-aware shuffle)
 * read about a target task, wherever it runs: in this worker (read directly)
 * or in another one (from its periodically published figure).
 */

/** One task's load as its own worker measures it. */
export interface TaskLoadFigure {
  task: number;
  /** Data tuples waiting in its receive queue, plus the one being executed. */
  queued: number;
  /** Its receive queue's bound (topology.executor.receive.buffer.size). */
  capacity: number;
  /** Mean time to process one tuple (execute, or GPU kernel time where larger), ms; null until measured. */
  serviceMs: number | null;
}

/** What a grouping asks about a target task. */
export interface LoadView {
  /**
   * Estimated time, in ms, until a tuple sent to `task` now would be done:
   * (queued + 1) × mean service time. Null when there is no fresh figure
   * for the task (never published, or older than the staleness bound).
   */
  waitMs(task: number): number | null;
  /** Storm's load figure: the receive queue's fill, 0..1; null when unknown. */
  loadFraction(task: number): number | null;
  /** Tells the view a tuple went to `task`, so a remote estimate counts it before the next report. */
  noteSent(task: number): void;
}

/** Everything a load-based grouping needs from its worker. */
export interface RoutingLoad {
  view: LoadView;
  /** Milliseconds; injectable so the load-aware shuffle's refresh is testable. */
  clock: () => number;
  /** topology.load.update.interval.ms: how often load-aware shuffle re-weighs its targets. */
  refreshMs: number;
  /** topology.localityaware.higher.bound / lower.bound. */
  higherBound: number;
  lowerBound: number;
}

/** Expected completion of a tuple sent now: the queue ahead of it, then itself. Unknown service time counts as 0 (an unmeasured task gets tried). */
export function expectedWaitMs(queued: number, serviceMs: number | null): number {
  return (queued + 1) * (serviceMs ?? 0);
}

/** A view with no figures at all: two-choice then degrades to a random pick, load-aware shuffle to an even spread. */
export const NO_LOAD: LoadView = {
  waitMs: () => null,
  loadFraction: () => null,
  noteSent: () => undefined,
};
