/**
 * The words of HDRF's decisions: a topology's request ("3 workers (2 GPU ×
 * 4096 MB), 0.6 cores, 768 MB"), what it is short of, and the sentence a
 * waiting topology shows ("waiting 12 s: dominant share 0.42 > topology b's
 * 0.10, which went first; …", "reserved since 12 s: needs 2 GPU × 4096 MB; …").
 * A QueueEntry is stored without durations; `describeQueue` adds them for the
 * time it is shown, so the scheduler, nimbus's views and the dry run say the same.
 */
import type { QueueEntry, WorkerAssignment } from '../../common/assignment.js';
import type { ResourceVector } from '../../common/resources.js';
import { describeVector, fmtShare } from './resource-math.js';

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

/** The whole request of a placement: workers, GPU workers with their GPU memory, cores and memory. */
export function describeRequest(workers: readonly WorkerAssignment[], total: Readonly<ResourceVector>): string {
  const gpuMbs = workers.filter((w) => w.gpu).map((w) => w.resources?.gpuMemoryMB ?? 0);
  const head = `${workers.length} worker${workers.length === 1 ? '' : 's'}${gpuMbs.length ? ` (${describeGpuWorkers(gpuMbs)})` : ''}`;
  const rest = describeVector({ ...total, gpuMemoryMB: 0 });
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
