/**
 * Folding executor metrics (as heartbeats carry them) into per-component
 * figures: counters summed, capacity as the busiest executor's, latency
 * percentiles from merged histograms, and the GPU backends that ran with any
 * fallback. `hstorm describe` (nimbus) and the `hstorm local` summary both
 * present this one fold.
 */
import { mergeLatency, type Histogram, type SparseHistogram } from './histogram.js';
import type { LatencyStats } from './storm-base.js';

/** The fields of ExecutorMetrics the fold reads (nimbus's parsed heartbeats have the same shape). */
export interface ExecutorSample {
  emitted: number;
  transferred: number;
  executed: number;
  acked: number;
  failed: number;
  capacity: number;
  executeLatencyMs: LatencyStats;
  completeLatencyMs: LatencyStats | null;
  executeHist?: SparseHistogram | undefined;
  executeSum?: number | undefined;
  completeHist?: SparseHistogram | null | undefined;
  completeSum?: number | undefined;
  gpu?: { backend: string; fallback?: unknown; fallbackReason?: unknown } | undefined;
}

export interface ComponentRollup {
  executors: number;
  emitted: number;
  transferred: number;
  executed: number;
  acked: number;
  failed: number;
  capacity: number;
  execute: Histogram;
  complete: Histogram;
  /** Some executor tracks complete latency (a spout with acking). */
  tracksComplete: boolean;
  /** GPU bolts: backends that actually ran, in first-seen order. */
  backends: string[];
  /** Any executor fell back from a GPU slot to a CPU backend (DESIGN §7: never pass a CPU run off as GPU). */
  fallback: boolean;
  fallbackReasons: string[];
}

export function rollup(list: readonly ExecutorSample[]): ComponentRollup {
  const r: ComponentRollup = {
    executors: list.length,
    emitted: 0,
    transferred: 0,
    executed: 0,
    acked: 0,
    failed: 0,
    capacity: 0,
    execute: mergeLatency(list.map((e) => ({ stats: e.executeLatencyMs, hist: e.executeHist, sum: e.executeSum }))),
    complete: mergeLatency(list.map((e) => ({ stats: e.completeLatencyMs, hist: e.completeHist, sum: e.completeSum }))),
    tracksComplete: list.some((e) => e.completeLatencyMs !== null),
    backends: [],
    fallback: false,
    fallbackReasons: [],
  };
  for (const e of list) {
    r.emitted += e.emitted;
    r.transferred += e.transferred;
    r.executed += e.executed;
    r.acked += e.acked;
    r.failed += e.failed;
    r.capacity = Math.max(r.capacity, e.capacity);
    if (!e.gpu) continue;
    if (!r.backends.includes(e.gpu.backend)) r.backends.push(e.gpu.backend);
    if (e.gpu.fallback === true) r.fallback = true;
    const reason = e.gpu.fallbackReason;
    if (typeof reason === 'string' && reason && !r.fallbackReasons.includes(reason)) r.fallbackReasons.push(reason);
  }
  return r;
}
