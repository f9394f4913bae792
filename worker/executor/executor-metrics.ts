/**
 * Per-executor counters and latency histograms, reported in heartbeats.
 * Counters are cumulative; capacity is the busy share of the last period.
 */
import { Histogram } from '../../common/histogram.js';
import type { ExecutorMetrics } from '../../common/storm-base.js';

export class ExecutorMetricsRecorder {
  emitted = 0;
  transferred = 0;
  executed = 0;
  acked = 0;
  failed = 0;
  readonly executeLatency = new Histogram();
  completeLatency: Histogram | null = null;
  private busyMs = 0;
  private periodStart = performance.now();
  private lastCapacity = 0;

  constructor(
    readonly component: string,
    readonly task: number,
  ) {}

  recordExecute(ms: number): void {
    this.executed++;
    this.busyMs += ms;
    this.executeLatency.record(ms);
  }

  recordComplete(ms: number): void {
    (this.completeLatency ??= new Histogram()).record(ms);
  }

  /** Closes the current capacity period (called once per report). */
  rollCapacity(): number {
    const now = performance.now();
    const span = now - this.periodStart;
    if (span > 0) this.lastCapacity = Math.min(1, this.busyMs / span);
    this.busyMs = 0;
    this.periodStart = now;
    return this.lastCapacity;
  }

  snapshot(queueDepth: number, capacity: number): ExecutorMetrics & { executeHist: [number, number][]; completeHist: [number, number][] | null; executeSum: number; completeSum: number } {
    return {
      component: this.component,
      task: this.task,
      emitted: this.emitted,
      transferred: this.transferred,
      executed: this.executed,
      acked: this.acked,
      failed: this.failed,
      executeLatencyMs: this.executeLatency.stats(),
      completeLatencyMs: this.completeLatency?.stats() ?? null,
      queueDepth,
      capacity: Math.round(capacity * 1000) / 1000,
      executeHist: this.executeLatency.toSparse(),
      executeSum: this.executeLatency.sum,
      completeHist: this.completeLatency?.toSparse() ?? null,
      completeSum: this.completeLatency?.sum ?? 0,
    };
  }
}
