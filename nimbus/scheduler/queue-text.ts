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

/** "2 GPU × 4096 MB", "2 GPU × 4096+2048 MB", "1 GPU" (no memory declared). */
export function describeGpuWorkers(mbs: readonly number[]): string {
  if (!mbs.length) return '';
  const sorted = [...mbs].sort((a, b) => b - a);
  if (sorted[0] === 0) return `${mbs.length} GPU`;
  const same = sorted.every((m) => m === sorted[0]);
  return `${mbs.length} GPU × ${same ? sorted[0] : sorted.join('+')} MB`;
}

/** A topology's whole request: its workers, the GPU memory of each GPU worker, and what all its executors ask for. */
export interface TopologyRequest {
  workers: number;
  gpuWorkerMemoryMB: number[];
  total: ResourceVector;
}

/**
 * What a topology asks for in all. When its placement on the empty cluster is whole, that placement (α decides how
 * GPU executors share GPU workers). When it is not — an executor that fits nowhere, fewer workers than asked —, the
 * request as declared: W workers, the GPU executors dealt evenly over the G GPU workers, every executor's demand;
 * never only the part that could be placed, or a topology that can never run would seem to ask for less than it does.
 */
export function topologyRequest(plan: TopologyPlan, target: TopologySchedule): TopologyRequest {
  if (target.unassigned.length === 0 && target.workers.length === plan.w) {
    const total = vec();
    for (const w of target.workers) addInto(total, w.resources ?? ZERO);
    return { workers: plan.w, gpuWorkerMemoryMB: target.workers.filter((w) => w.gpu).map((w) => w.resources?.gpuMemoryMB ?? 0), total };
  }
  const g = plan.g;
  const gpuWorkerMemoryMB = Array.from({ length: g }, () => 0);
  plan.gpuExecutors.forEach((x, i) => (gpuWorkerMemoryMB[i % g]! += plan.demand.get(x.component)?.gpuMemoryMB ?? 0));
  const total = addInto(sumDemand(plan, plan.cpuExecutors, false), sumDemand(plan, plan.gpuExecutors, g > 0));
  return { workers: plan.w, gpuWorkerMemoryMB, total };
}

/** The whole request in words: workers, GPU workers with their GPU memory, cores and memory. */
export function describeRequest(r: TopologyRequest): string {
  const gpu = r.gpuWorkerMemoryMB;
  const head = `${r.workers} worker${r.workers === 1 ? '' : 's'}${gpu.length ? ` (${describeGpuWorkers(gpu)})` : ''}`;
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
