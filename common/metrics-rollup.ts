/**
 * Folding executor metrics (as heartbeats carry them) into per-component
 * figures: counters summed, capacity as the busiest executor's, latency
 * percentiles from merged histograms, and for GPU bolts the backends and
 * adapters that ran, any fallback, kernel time per launch, time in flight
 * per tuple and device trouble. `hstorm describe` (nimbus) and the
 * `hstorm local` summary both present this one fold.
 */
import { mergeLatency, type Histogram, type SparseHistogram } from './histogram.js';
import type { GpuDeviceStats, LatencyStats, TupleCounters } from './storm-base.js';
import { webgpuLabel, type GpuAdapterReport } from './webgpu-adapter.js';
import { isGpuBackend } from './gpu-backends.js';

/** The fields of ExecutorMetrics the fold reads (nimbus's parsed heartbeats have the same shape). */
export interface ExecutorSample extends TupleCounters {
  ticks?: number | undefined;
  staleTuples?: number | undefined;
  capacity: number;
  executeLatencyMs: LatencyStats;
  completeLatencyMs: LatencyStats | null;
  executeHist?: SparseHistogram | undefined;
  executeSum?: number | undefined;
  completeHist?: SparseHistogram | null | undefined;
  completeSum?: number | undefined;
  busyMs?: number | undefined;
  uptimeMs?: number | undefined;
  gpu?: GpuSample | undefined;
}

/** The fields of GpuMetrics the fold reads. */
export interface GpuSample {
  backend: string | null;
  backendsRan?: string[] | undefined;
  fallback?: unknown;
  fallbackReason?: unknown;
  adapter?: GpuAdapterReport | null | undefined;
  deviceStats?: GpuDeviceStats | null | undefined;
  launches?: number | undefined;
  failedLaunches?: number | undefined;
  kernelMs?: LatencyStats | undefined;
  kernelHist?: SparseHistogram | undefined;
  kernelSum?: number | undefined;
  inFlightMs?: LatencyStats | undefined;
  inFlightHist?: SparseHistogram | undefined;
  inFlightSum?: number | undefined;
}

/** A GPU component's kernels, folded over its executors. */
export interface GpuRollup {
  /** "webgpu (NVIDIA H100 …)", "webgpu (software adapter: llvmpipe …)", "webasm": what ran, with the adapter. */
  ran: string[];
  adapters: GpuAdapterReport[];
  launches: number;
  failedLaunches: number;
  kernel: Histogram;
  inFlight: Histogram;
  devicesLost: number;
  deviceErrors: number;
}

export interface ComponentRollup extends TupleCounters {
  executors: number;
  /** Tick tuples executed (apart from the data tuples counted above). */
  ticks: number;
  /** Tracked tuples dropped unexecuted: their trees had timed out at their spouts (worker/fencing/stale-tuples.ts). */
  staleTuples: number;
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
  /** Busy share over the executors' whole lives (the busiest executor's); null when no executor reports it. */
  capacityOverLife: number | null;
  /** GPU components only. */
  gpu: GpuRollup | null;
}

export function rollup(list: readonly ExecutorSample[]): ComponentRollup {
  const r: ComponentRollup = {
    executors: list.length,
    emitted: 0,
    transferred: 0,
    executed: 0,
    acked: 0,
    failed: 0,
    ticks: 0,
    staleTuples: 0,
    capacity: 0,
    execute: mergeLatency(list.map((e) => ({ stats: e.executeLatencyMs, hist: e.executeHist, sum: e.executeSum }))),
    complete: mergeLatency(list.map((e) => ({ stats: e.completeLatencyMs, hist: e.completeHist, sum: e.completeSum }))),
    tracksComplete: list.some((e) => e.completeLatencyMs !== null),
    backends: [],
    fallback: false,
    fallbackReasons: [],
    capacityOverLife: null,
    gpu: gpuRollup(list),
  };
  for (const e of list) {
    r.emitted += e.emitted;
    r.transferred += e.transferred;
    r.executed += e.executed;
    r.acked += e.acked;
    r.failed += e.failed;
    r.ticks += e.ticks ?? 0;
    r.staleTuples += e.staleTuples ?? 0;
    r.capacity = Math.max(r.capacity, e.capacity);
    if (e.busyMs !== undefined && e.uptimeMs) r.capacityOverLife = Math.max(r.capacityOverLife ?? 0, Math.min(1, e.busyMs / e.uptimeMs));
    if (!e.gpu) continue;
    // Only what ran: a task that has not launched yet reports no backend.
    for (const b of ranOn(e.gpu)) if (!r.backends.includes(b)) r.backends.push(b);
    if (e.gpu.fallback === true) r.fallback = true;
    const reason = e.gpu.fallbackReason;
    if (typeof reason === 'string' && reason && !r.fallbackReasons.includes(reason)) r.fallbackReasons.push(reason);
  }
  return r;
}

/** The backends a task ran launches on: all of them where reported, else the current one. */
function ranOn(g: GpuSample): string[] {
  if (g.backendsRan?.length) return g.backendsRan;
  return g.backend === null ? [] : [g.backend];
}

function gpuRollup(list: readonly ExecutorSample[]): GpuRollup | null {
  const gpus = list.flatMap((e) => (e.gpu ? [e.gpu] : []));
  if (gpus.length === 0) return null;
  const ran: string[] = [];
  const adapters: GpuAdapterReport[] = [];
  for (const g of gpus) {
    for (const b of ranOn(g)) {
      const label = b === 'webgpu' ? webgpuLabel(g.adapter ?? null) : b;
      if (!ran.includes(label)) ran.push(label);
    }
    if (g.adapter && !adapters.some((a) => a.identity === g.adapter!.identity)) adapters.push(g.adapter);
  }
  // The tasks of a worker process share its device and each reports the same counts: take the worst report, not the sum.
  const lost = Math.max(0, ...gpus.map((g) => g.deviceStats?.lost ?? 0));
  const errors = Math.max(0, ...gpus.map((g) => g.deviceStats?.errors ?? 0));
  return {
    ran,
    adapters,
    launches: gpus.reduce((n, g) => n + (g.launches ?? 0), 0),
    failedLaunches: gpus.reduce((n, g) => n + (g.failedLaunches ?? 0), 0),
    kernel: mergeLatency(gpus.map((g) => ({ stats: g.kernelMs ?? null, hist: g.kernelHist, sum: g.kernelSum ?? 0 }))),
    inFlight: mergeLatency(gpus.map((g) => ({ stats: g.inFlightMs ?? null, hist: g.inFlightHist, sum: g.inFlightSum ?? 0 }))),
    devicesLost: lost,
    deviceErrors: errors,
  };
}

/** A GPU component as `describe`, the local summary and the benchmarks show it. */
export interface ComponentGpuSummary {
  /** Backends that ran (before any launch: none). */
  backends: string[];
  /** What ran, with the adapter: "webgpu (NVIDIA H100 …)", "webgpu (software adapter: llvmpipe …)", "webasm". */
  ran: string[];
  adapters: GpuAdapterReport[];
  /** Some backend that ran is a GPU backend (a software WebGPU adapter included)… */
  onGpu: boolean;
  /** …and it was a real GPU, not a software adapter. */
  onHardwareGpu: boolean;
  fallback: boolean;
  fallbackReasons: string[];
  launches: number;
  failedLaunches: number;
  /** Kernel time per launch, and per tuple from entering the bolt to its ack. */
  kernelMs: LatencyStats;
  inFlightMs: LatencyStats;
  devicesLost: number;
  deviceErrors: number;
}

export function gpuSummary(r: ComponentRollup): ComponentGpuSummary | null {
  if (!r.gpu) return null;
  const onGpu = r.backends.some(isGpuBackend);
  const softwareOnly = r.gpu.adapters.length > 0 && r.gpu.adapters.every((a) => a.software);
  return {
    backends: r.backends,
    ran: r.gpu.ran,
    adapters: r.gpu.adapters,
    onGpu,
    onHardwareGpu: r.backends.some((b) => b === 'headlessgl' || (b === 'webgpu' && !softwareOnly)),
    fallback: r.fallback,
    fallbackReasons: r.fallbackReasons,
    launches: r.gpu.launches,
    failedLaunches: r.gpu.failedLaunches,
    kernelMs: r.gpu.kernel.stats(),
    inFlightMs: r.gpu.inFlight.stats(),
    devicesLost: r.gpu.devicesLost,
    deviceErrors: r.gpu.deviceErrors,
  };
}
