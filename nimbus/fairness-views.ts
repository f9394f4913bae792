/**
 * What `hstorm list` / `describe` and the JSON API show of HDRF: the cluster's
 * cores, memory and GPU memory and how much is held, each topology's holdings
 * and dominant share, and the queue — who waits, how long, behind whom, and
 * who holds a reservation. Durations are computed for the moment of the view
 * from the stored times, so they are never stale.
 */
import type { Assignment, QueueEntry } from '../common/assignment.js';
import type { ResourceVector, SupervisorInfo } from '../common/resources.js';
import type { StormBase } from '../common/storm-base.js';
import { demandsOf, workerResources } from './placement.js';
import { schedTopologyFor } from './sched-topology.js';
import { clusterTotals, describeQueue, dominantShare, secsSince } from './scheduler/index.js';
import type { QueueView, TopologyResources } from './views.js';

/** A of HDRF from the supervisors' reports. */
export function totalsOf(supervisors: Iterable<SupervisorInfo>): ResourceVector {
  return clusterTotals([...supervisors].map((s) => ({ cpuCores: s.cpus, memoryMB: s.memoryMB, gpus: s.gpus })));
}

/** Cores, memory and GPU memory the supervisors offer, and what all workers hold. */
export function clusterResources(
  supervisors: ReadonlyMap<string, SupervisorInfo>,
  assignments: ReadonlyMap<string, Assignment>,
  storms: ReadonlyMap<string, StormBase>,
): { total: ResourceVector; held: ResourceVector } {
  const held = { cpu: 0, memoryMB: 0, gpuMemoryMB: 0 };
  for (const a of assignments.values()) {
    const h = holdingsOf(storms.get(a.topologyId), a);
    held.cpu += h.cpu;
    held.memoryMB += h.memoryMB;
    held.gpuMemoryMB += h.gpuMemoryMB;
  }
  return { total: totalsOf(supervisors.values()), held };
}

/** What a topology's workers hold (their records, or their executors' requests for older records). */
export function holdingsOf(storm: StormBase | undefined, assignment: Assignment | null): ResourceVector {
  const total: ResourceVector = { cpu: 0, memoryMB: 0, gpuMemoryMB: 0 };
  if (!assignment) return total;
  const demands = storm && assignment.workers.some((w) => !w.resources) ? demandsOf(storm) : undefined;
  for (const w of assignment.workers) {
    const r = workerResources(storm, w, demands);
    total.cpu += r.cpu;
    total.memoryMB += r.memoryMB;
    total.gpuMemoryMB += r.gpuMemoryMB;
  }
  return total;
}

/** Its whole request: every executor's ask (ackers included), whatever is placed now. */
export function requestOf(storm: StormBase): ResourceVector {
  const total: ResourceVector = { cpu: 0, memoryMB: 0, gpuMemoryMB: 0 };
  for (const c of schedTopologyFor(storm).components) {
    const r = c.resources;
    if (!r) continue;
    total.cpu += r.cpu * c.parallelism;
    total.memoryMB += r.memoryMB * c.parallelism;
    total.gpuMemoryMB += r.gpuMemoryMB * c.parallelism;
  }
  return total;
}

export function resourcesView(storm: StormBase | undefined, assignment: Assignment | null, totals: ResourceVector): TopologyResources {
  const holds = holdingsOf(storm, assignment);
  const d = dominantShare(holds, totals);
  return {
    holds,
    dominantShare: d.share,
    dominantResource: d.dim,
    shares: { cpu: d.shares.cpu, memory: d.shares.memory, gpuMemory: d.shares['gpu memory'] },
  };
}

export function queueView(q: QueueEntry | null | undefined, now: number): QueueView | null {
  if (!q) return null;
  return {
    state: q.state,
    waitSecs: secsSince(q.since, now),
    reservedSecs: q.reservedSince === null ? null : secsSince(q.reservedSince, now),
    dominantShare: q.dominantShare,
    needs: q.needs,
    blockedBy: q.blockedBy,
    reason: describeQueue(q, now),
  };
}

/** Queue order as HDRF takes it: the reservation first, then smallest dominant share, then longest wait. */
export function queueOrder(a: QueueEntry, b: QueueEntry): number {
  const r = (q: QueueEntry) => (q.state === 'reserved' ? 0 : 1);
  return r(a) - r(b) || a.dominantShare - b.dominantShare || a.since - b.since;
}
