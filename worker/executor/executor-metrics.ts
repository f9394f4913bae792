/**
 * Per-executor counters and latency histograms, reported in heartbeats.
 * Counters are cumulative; capacity is the busy share of the last period,
 * and `busyMs`/`uptimeMs` let a reader compute it over any longer span.
 */
import { Histogram } from '../../common/histogram.js';
import type { ExecutorMetrics } from '../../common/storm-base.js';

/** Power of two: one execute in this many is timed. */
const SAMPLE_EVERY = 8;

export class ExecutorMetricsRecorder {
  emitted = 0;
  transferred = 0;
  executed = 0;
  acked = 0;
  failed = 0;
  /** Tick tuples executed: counted apart from data tuples (not in executed, acked or the execute latency). */
  ticks = 0;
  /** Tracked tuples for this task dropped unexecuted: their trees had timed out at their spouts (fencing/stale-tuples.ts). */
  staleTuples = 0;
  readonly executeLatency = new Histogram();
  completeLatency: Histogram | null = null;
  /** The latest timed execute (ms); taken as slow until one was timed. */
  lastExecuteMs = 1;
  private busyMs = 0;
  private busyTotal = 0;
  private readonly startedAt = performance.now();
  private periodStart = this.startedAt;
  private lastCapacity = 0;
  /** Cumulative busy ms off this thread (GPU kernels), when the component reports it. */
  private offThreadBusy: (() => number) | null = null;
  private offThreadAtPeriodStart = 0;

  constructor(
    readonly component: string,
    readonly task: number,
  ) {}

  private sampleCounter = 0;

  /**
   * Whether to time the next execute. Like Storm (topology.stats.sample.rate)
   * we time one call in SAMPLE_EVERY: two clock reads per tuple cost as much
   * as a small bolt's work. Each sample stands for SAMPLE_EVERY calls in the
   * capacity figure.
   */
  sampleExecute(): boolean {
    return (this.sampleCounter++ & (SAMPLE_EVERY - 1)) === 0;
  }

  /** Counts one execute; `ms` < 0 when it was not timed. */
  countExecute(ms: number): void {
    this.executed++;
    if (ms < 0) return;
    this.lastExecuteMs = ms;
    this.busyMs += ms * SAMPLE_EVERY;
    this.busyTotal += ms * SAMPLE_EVERY;
    this.executeLatency.record(ms);
  }

  /** Counts one tick tuple's execute (every one timed: they are rare): busy time for capacity, nothing else. */
  countTick(ms: number): void {
    this.ticks++;
    this.busyMs += ms;
    this.busyTotal += ms;
  }

  /** Counts `supplier`'s busy time in capacity (see TopologyContext.reportBusyTime). */
  countOffThreadBusy(supplier: () => number): void {
    this.offThreadBusy = supplier;
    this.offThreadAtPeriodStart = supplier();
  }

  recordComplete(ms: number): void {
    (this.completeLatency ??= new Histogram()).record(ms);
  }

  /** Closes the current capacity period (called once per report). */
  rollCapacity(): number {
    const now = performance.now();
    const span = now - this.periodStart;
    const offThread = this.offThreadBusy?.() ?? 0;
    // Kernels run while execute gathers the next tuples: the two overlap, so the larger share, not the sum.
    if (span > 0) this.lastCapacity = Math.min(1, Math.max(this.busyMs, offThread - this.offThreadAtPeriodStart) / span);
    this.busyMs = 0;
    this.offThreadAtPeriodStart = offThread;
    this.periodStart = now;
    return this.lastCapacity;
  }

  /** Busy ms since the executor started (execute time, or off-thread time where larger). */
  totalBusyMs(): number {
    return Math.max(this.busyTotal, this.offThreadBusy?.() ?? 0);
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
      ...(this.ticks > 0 && { ticks: this.ticks }),
      ...(this.staleTuples > 0 && { staleTuples: this.staleTuples }),
      executeLatencyMs: this.executeLatency.stats(),
      completeLatencyMs: this.completeLatency?.stats() ?? null,
      queueDepth,
      capacity: Math.round(capacity * 1000) / 1000,
      busyMs: Math.round(this.totalBusyMs()),
      uptimeMs: Math.round(performance.now() - this.startedAt),
      executeHist: this.executeLatency.toWire(),
      executeSum: this.executeLatency.sum,
      completeHist: this.completeLatency?.toWire() ?? null,
      completeSum: this.completeLatency?.sum ?? 0,
    };
  }
}
