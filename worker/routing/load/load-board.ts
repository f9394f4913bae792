/**
 * A worker's view of the load of the tasks its load-based groupings route
 * to. Tasks in this worker are read directly (live queue length, service
 * time refreshed every tick); tasks in other workers through the reports
 * their workers publish (load-message.ts), plus what this worker sent them
 * since.
 *
 * Staleness is bounded and measured: a remote figure's age is the time since
 * it arrived plus its transit (sender's clock to ours; across hosts that
 * includes clock skew); past `staleMs` it is not used (the grouping falls
 * back to a random pick), and the ages behind routing decisions are counted.
 */
import { expectedWaitMs, type LoadView, type TaskLoadFigure } from './task-load.js';
import { ServiceTimeEstimator } from './service-time.js';
import { decodeLoadReport, type LoadReport } from './load-message.js';
import type { RoutingLoadStats } from '../../../common/storm-base.js';

/** How the board reads one task of this worker. */
export interface LocalTaskProbe {
  /** Data tuples waiting, plus the one in service. */
  backlog(): number;
  readonly capacity: number;
  /** Cumulative tuples executed. */
  executed(): number;
  /** Cumulative busy ms (execute time, or GPU kernel time where larger). */
  busyMs(): number;
}

export interface LoadBoardOptions {
  /** Wall-clock ms (reports carry the sender's): Date.now in a worker, a fake in tests. */
  clock: () => number;
  /** topology.load.stale.ms */
  staleMs: number;
}

/** Kept with the heartbeat's types (common/storm-base.ts), where it is reported. */
export type LoadBoardStats = RoutingLoadStats;

interface LocalEntry {
  probe: LocalTaskProbe;
  estimator: ServiceTimeEstimator;
}

interface RemoteEntry {
  figure: TaskLoadFigure;
  /** Local clock when the figure arrived, minus its transit: when it was measured, in our clock. */
  measuredAt: number;
  /** Tuples this worker sent the task since the figure. */
  sentSince: number;
}

export class LoadBoard implements LoadView {
  private readonly local = new Map<number, LocalEntry>();
  private readonly remote = new Map<number, RemoteEntry>();
  private seq = 0;
  private reportsSent = 0;
  private reportsReceived = 0;
  private reportsDropped = 0;
  private transitSum = 0;
  private transitMax = 0;
  private ageSum = 0;
  private ageMax = 0;
  private freshReads = 0;
  private staleReads = 0;

  constructor(private readonly opts: LoadBoardOptions) {}

  /** Watches a task of this worker. */
  addLocal(task: number, probe: LocalTaskProbe): void {
    this.local.set(task, { probe, estimator: new ServiceTimeEstimator(this.opts.clock()) });
  }

  /** Refreshes the local tasks' service times (call every topology.load.update.interval.ms). */
  tick(): void {
    const now = this.opts.clock();
    for (const { probe, estimator } of this.local.values()) estimator.update(now, probe.executed(), probe.busyMs(), probe.backlog());
  }

  /** The report to publish to peers: this worker's watched tasks; null when it has none. */
  report(): LoadReport | null {
    if (this.local.size === 0) return null;
    const figures: TaskLoadFigure[] = [];
    for (const [task, e] of this.local) figures.push(this.localFigure(task, e));
    this.reportsSent++;
    return { seq: ++this.seq, sentAt: this.opts.clock(), figures };
  }

  /** Takes a peer's report (the values of a `__load` tuple); false when it was garbage and was dropped. */
  apply(values: readonly unknown[]): boolean {
    const r = decodeLoadReport(values);
    if (!r) {
      this.reportsDropped++;
      return false;
    }
    const now = this.opts.clock();
    const transit = Math.max(0, now - r.sentAt);
    this.reportsReceived++;
    this.transitSum += transit;
    if (transit > this.transitMax) this.transitMax = transit;
    for (const f of r.figures) {
      if (this.local.has(f.task)) continue; // our own tasks are read directly
      this.remote.set(f.task, { figure: f, measuredAt: now - transit, sentSince: 0 });
    }
    return true;
  }

  waitMs(task: number): number | null {
    const l = this.local.get(task);
    if (l) return expectedWaitMs(l.probe.backlog(), l.estimator.serviceMs);
    const e = this.freshRemote(task);
    if (!e) return null;
    // Between reports, what we sent since joins the queue. What the task served since is not taken off: other
    // senders fill it too, and we cannot see how much, so the remote estimate errs high by at most one period of
    // our own sends — towards keeping tuples in this worker, which is also the cheaper route.
    return expectedWaitMs(e.figure.queued + e.sentSince, e.figure.serviceMs);
  }

  loadFraction(task: number): number | null {
    const l = this.local.get(task);
    if (l) return Math.min(1, l.probe.backlog() / l.probe.capacity);
    const e = this.freshRemote(task);
    if (!e) return null;
    return Math.min(1, (e.figure.queued + e.sentSince) / e.figure.capacity);
  }

  noteSent(task: number): void {
    const e = this.remote.get(task);
    if (e) e.sentSince++;
  }

  stats(): LoadBoardStats {
    const reads = this.freshReads;
    return {
      reportsSent: this.reportsSent,
      reportsReceived: this.reportsReceived,
      reportsDropped: this.reportsDropped,
      transitMsMean: round(this.reportsReceived > 0 ? this.transitSum / this.reportsReceived : 0),
      transitMsMax: round(this.transitMax),
      ageAtUseMsMean: round(reads > 0 ? this.ageSum / reads : 0),
      ageAtUseMsMax: round(this.ageMax),
      staleReads: this.staleReads,
      freshReads: reads,
    };
  }

  private localFigure(task: number, e: LocalEntry): TaskLoadFigure {
    return { task, queued: e.probe.backlog(), capacity: e.probe.capacity, serviceMs: e.estimator.serviceMs };
  }

  /** The remote figure of `task` when it is fresh enough to use (and counts the read). */
  private freshRemote(task: number): RemoteEntry | null {
    const e = this.remote.get(task);
    if (!e) {
      this.staleReads++;
      return null;
    }
    const age = this.opts.clock() - e.measuredAt;
    if (age > this.opts.staleMs) {
      this.staleReads++;
      return null;
    }
    this.freshReads++;
    this.ageSum += age;
    if (age > this.ageMax) this.ageMax = age;
    return e;
  }
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}
