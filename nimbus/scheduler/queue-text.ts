/**
 * The words of HDRF's decisions: a topology's request ("3 workers (2 GPU ×
 * 4096 MB), 0.6 cores, 768 MB"), what it is short of, and the sentence a
 * waiting topology shows ("waiting 12 s: dominant share 0.42 > topology b's
 * 0.10, which went first; …", "reserved since 12 s: needs 2 GPU × 4096 MB; …").
 * A QueueEntry is stored without durations; `describeQueue` adds them for the
 * time it is shown, so the scheduler, nimbus's views and the dry run say the same.
 */
import type { QueueEntry } from '../../common/assignment.js';
import type { ResourceVector } from '../../common/resources.js';
import { sumDemand, type TopologyPlan } from './plan.js';
import { addInto, describeVector, fmtShare, vec, ZERO } from './resource-math.js';
import type { TopologySchedule } from './types.js';

/** Whole seconds from `from` to `now` (never negative). */
export function secsSince(from: number, now: number): number {
  return Math.max(0, Math.round((now - from) / 1000));
}

/**
 * "2 GPU × 4096 MB", "2 GPU × 4096+2048 MB", "1 GPU" (no memory declared). GPU memory is declared per executor
 * (`.gpu({ memoryMB })`, `topology.gpu.memory.mb`, as Storm's RAS declares every resource per executor) and a GPU
 * worker holds the sum of its executors': `perExecutor` (each worker's executors' MB) says so when one holds several,
 * "1 GPU × 65536 MB (2 executors × 32768 MB)".
 */
export function describeGpuWorkers(mbs: readonly number[], perExecutor: readonly (readonly number[])[] = []): string {
  if (!mbs.length) return '';
  const sorted = [...mbs].sort((a, b) => b - a);
  if (sorted[0] === 0) return `${mbs.length} GPU`;
  const same = sorted.every((m) => m === sorted[0]);
  const several = perExecutor.filter((xs) => xs.filter((m) => m > 0).length > 1);
  const each = several.flat().filter((m) => m > 0);
  const split = several.length === 0 ? '' : each.every((m) => m === each[0]) ? ` (${several[0]!.length} executors × ${each[0]} MB)` : ' (GPU memory per executor, summed per worker)';
  return `${mbs.length} GPU × ${same ? sorted[0] : sorted.join('+')} MB${split}`;
}

/** A topology's whole request: its workers, the GPU memory of each GPU worker, and what all its executors ask for. */
export interface TopologyRequest {
  workers: number;
  gpuWorkerMemoryMB: number[];
  /** The GPU memory each executor of each GPU worker declares (what its worker's figure sums). */
  gpuExecutorMemoryMB: number[][];
  total: ResourceVector;
}

/**
 * What a topology asks for in all. When its placement on the empty cluster is whole, that placement (α decides how
 * GPU executors share GPU workers). When it is not — an executor that fits nowhere, fewer workers than asked —, the
 * request as declared: W workers, the GPU executors dealt evenly over the G GPU workers, every executor's demand;
 * never only the part that could be placed, or a topology that can never run would seem to ask for less than it does.
 */
export function topologyRequest(plan: TopologyPlan, target: TopologySchedule): TopologyRequest {
  const mbOf = (component: string) => plan.demand.get(component)?.gpuMemoryMB ?? 0;
  if (target.unassigned.length === 0 && target.workers.length === plan.w) {
    const total = vec();
    for (const w of target.workers) addInto(total, w.resources ?? ZERO);
    const gpuWorkers = target.workers.filter((w) => w.gpu);
    return {
      workers: plan.w,
      gpuWorkerMemoryMB: gpuWorkers.map((w) => w.resources?.gpuMemoryMB ?? 0),
      gpuExecutorMemoryMB: gpuWorkers.map((w) => w.executors.filter((x) => plan.gpuComponents.has(x.component)).map((x) => mbOf(x.component))),
      total,
    };
  }
  const g = plan.g;
  const gpuExecutorMemoryMB = Array.from({ length: g }, (): number[] => []);
  // Without GPU workers (CPU fallback) GPU executors hold no GPU memory.
  if (g > 0) plan.gpuExecutors.forEach((x, i) => gpuExecutorMemoryMB[i % g]!.push(mbOf(x.component)));
  const total = addInto(sumDemand(plan, plan.cpuExecutors, false), sumDemand(plan, plan.gpuExecutors, g > 0));
  return { workers: plan.w, gpuWorkerMemoryMB: gpuExecutorMemoryMB.map((xs) => xs.reduce((a, b) => a + b, 0)), gpuExecutorMemoryMB, total };
}

/** The whole request in words: workers, GPU workers with their GPU memory, cores and memory. */
export function describeRequest(r: TopologyRequest): string {
  const gpu = r.gpuWorkerMemoryMB;
  const head = `${r.workers} worker${r.workers === 1 ? '' : 's'}${gpu.length ? ` (${describeGpuWorkers(gpu, r.gpuExecutorMemoryMB)})` : ''}`;
  const rest = describeVector({ ...r.total, gpuMemoryMB: 0 });
  return rest === 'nothing' ? head : `${head}, ${rest}`;
}

/** The sentence for a waiting topology at `now`. */
export function describeQueue(q: QueueEntry, now: number): string {
  if (q.state === 'reserved') {
    return `reserved since ${secsSince(q.reservedSince ?? q.since, now)} s: needs ${q.needs}; ${q.detail}`;
  }
  const waited = `waiting ${secsSince(q.since, now)} s`;
  const b = q.blockedBy;
  if (b?.why === 'reservation') {
    return `${waited}: free resources are held for topology ${b.topology}'s reservation; needs ${q.needs}; ${q.detail}`;
  }
  if (b?.why === 'share') {
    const order =
      q.dominantShare > b.dominantShare
        ? `dominant share ${fmtShare(q.dominantShare)} > topology ${b.topology}'s ${fmtShare(b.dominantShare)}, which went first`
        : `same dominant share ${fmtShare(q.dominantShare)} as topology ${b.topology}, which was ahead in the queue and went first`;
    return `${waited}: ${order}; needs ${q.needs}; ${q.detail}`;
  }
  return `${waited}: needs ${q.needs}; ${q.detail}`;
}
