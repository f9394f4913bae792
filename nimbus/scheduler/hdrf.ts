/**
 * HDRF between topologies (seed 000, Algorithm 1), over a placement strategy
 * within each topology (Algorithms 2–3 of `hetero`, or `even`).
 *
 *   A = the cluster's cores, memory and GPU memory; R_i = what topology i holds
 *   s_i = max(cpu_i / A_cpu, mem_i / A_mem, gpuMem_i / A_gpuMem)    (dominant share)
 *   S7: a waiting topology whose wait passed OT holds a reservation (the
 *       longest-waiting one first): it is admitted as soon as it fits, and
 *       until then nothing else is admitted — free resources are held for it;
 *   S8–S9: otherwise waiting topologies go by smallest s_i (ties: longest
 *       wait, then id); each is admitted if its whole request fits what is
 *       free, else it waits with the reason, and the next one is tried.
 *
 * All-or-nothing: a topology is admitted only when its placement on what is
 * free now is as complete as its placement on an empty cluster — every
 * executor placed, as many workers and GPU workers — and its cores and memory
 * fit the cluster's free cores and memory. A topology that could not run
 * whole even on an empty cluster waits with that reason and gets no
 * reservation (it would hold the cluster forever). Whether a request fits is
 * decided by placing it for real (a trial on the free slots), so fragmentation
 * across nodes and GPUs is never mistaken for room.
 *
 * Pure: the clock is `input.now`; the waiting time is `waitingSince` of each
 * topology, and a reservation starts at waitingSince + OT, so no state beyond
 * the input is needed.
 */
import type { QueueBlocker, QueueEntry, UnassignedExecutor, WorkerAssignment } from '../../common/assignment.js';
import { SchedulingError } from '../../common/errors.js';
import type { ResourceVector } from '../../common/resources.js';
import { scheduleEven } from './even.js';
import { scheduleHetero } from './hetero.js';
import { planTopology } from './plan.js';
import { describeQueue, describeRequest, secsSince } from './queue-text.js';
import { addInto, clusterTotals, dominantShare, fmtShare, sub, vec } from './resource-math.js';
import { SlotPool } from './slot-pool.js';
import type { OccupiedSlot, PlacementStrategy, ScheduleInput, ScheduleResult, SchedTopology, TopologySchedule } from './types.js';

/** Resource comparisons tolerate binary rounding (0.1 + 0.2 cores). */
const EPS = 1e-9;

interface Pending {
  topo: SchedTopology;
  since: number;
  /** Dominant share of what it holds now (its surviving workers; 0 when not started). */
  share: number;
  /** Its placement on the empty cluster: what "whole" means for it. */
  target: TopologySchedule;
  /** Σ of the target's workers' resources. */
  request: ResourceVector;
  /** Why it can never run whole on this cluster, or null. */
  never: string | null;
}

export function scheduleHdrf(input: ScheduleInput, placement: PlacementStrategy): ScheduleResult {
  const fairness = input.fairness;
  if (!fairness) throw new SchedulingError('the hdrf strategy needs input.fairness (mode and the reservation timeout OT)');
  const now = input.now;
  if (now === undefined || !Number.isFinite(now)) throw new SchedulingError('HDRF needs input.now (the caller\'s clock, epoch ms)');
  const ot = fairness.reservationTimeoutMs;
  if (!(ot >= 0)) throw new SchedulingError(`HDRF reservation timeout must be ≥ 0 ms, got ${ot}`);

  const place = (t: SchedTopology, occupied: readonly OccupiedSlot[]): TopologySchedule => {
    const one = { cluster: input.cluster, topologies: [t], occupied: [...occupied], gpuFallbackToCpu: input.gpuFallbackToCpu === true };
    return (placement === 'even' ? scheduleEven(one) : scheduleHetero(one)).assignments.get(t.id)!;
  };

  const totals = clusterTotals(input.cluster.supervisors);
  // Every claim is kept (the SlotPool of a trial resolves them); what counts as held is each port's first claim.
  let current: OccupiedSlot[] = [...input.occupied];
  let { used, useOf } = usage(input, current);

  const pending: Pending[] = input.topologies.map((topo) => {
    planTopology(topo); // checks the topology before anything is tried
    const target = place(topo, []);
    const request = vec();
    for (const w of target.workers) addInto(request, w.resources);
    return {
      topo,
      since: topo.waitingSince ?? now,
      share: dominantShare(useOf.get(topo.id) ?? vec(), totals).share,
      target,
      request,
      never: neverReason(target, request, totals),
    };
  });

  const results = new Map<string, TopologySchedule>();
  const remaining = new Set(pending);
  const admitted: Pending[] = [];

  /** Its whole placement on what is free now (its own workers count as free for it), or why not. */
  const trial = (p: Pending): { ok: true; schedule: TopologySchedule } | { ok: false; detail: string } => {
    const others = current.filter((o) => o.topologyId !== p.topo.id);
    const own = useOf.get(p.topo.id) ?? vec();
    const free = addInto(sub(totals, used), own);
    const cpuOk = totals.cpu <= 0 || p.request.cpu <= free.cpu + EPS;
    const memOk = totals.memoryMB <= 0 || p.request.memoryMB <= free.memoryMB + EPS;
    if (cpuOk && memOk) {
      const s = place(p.topo, others);
      if (asWhole(s, p.target)) return { ok: true, schedule: s };
    }
    return { ok: false, detail: shortfall(input, others, p, free) };
  };

  const admit = (p: Pending, s: TopologySchedule, why: string): void => {
    remaining.delete(p);
    admitted.push(p);
    current = current.filter((o) => o.topologyId !== p.topo.id);
    for (const w of s.workers) {
      current.push({ supervisorId: w.supervisorId, port: w.port, gpuId: w.gpu?.gpuId ?? null, topologyId: p.topo.id, ...(w.resources && { resources: w.resources }) });
    }
    ({ used, useOf } = usage(input, current));
    const workers = s.workers.map((w) => ({ ...w, reason: `${why}; ${w.reason}` }));
    results.set(p.topo.id, { workers, unassigned: s.unassigned, queue: null });
  };

  const wait = (p: Pending, q: Omit<QueueEntry, 'since' | 'dominantShare' | 'needs'>): void => {
    remaining.delete(p);
    const entry: QueueEntry = { ...q, since: p.since, dominantShare: p.share, needs: describeRequest(p.target.workers, p.request) };
    const reason = `HDRF: ${describeQueue(entry, now)}`;
    const lost: UnassignedExecutor[] = p.topo.executors.map((x) => ({ component: x.component, task: x.task, reason }));
    results.set(p.topo.id, { workers: [], unassigned: lost, queue: entry });
  };

  // S7: reservations, longest wait first; the first one that does not fit holds everything free.
  let barrier: Pending | null = null;
  for (;;) {
    const holder = [...remaining]
      .filter((p) => p.never === null && now - p.since >= ot)
      .sort((a, b) => a.since - b.since || cmp(a.topo.id, b.topo.id))[0];
    if (!holder) break;
    const r = trial(holder);
    if (r.ok) {
      admit(holder, r.schedule, `HDRF: admitted on its reservation (waited ${secsSince(holder.since, now)} s, OT ${Math.round(ot / 1000)} s)`);
      continue;
    }
    barrier = holder;
    wait(holder, { state: 'reserved', reservedSince: holder.since + ot, blockedBy: null, detail: r.detail });
    break;
  }

  if (barrier) {
    const blockedBy: QueueBlocker = { topology: barrier.topo.id, why: 'reservation', dominantShare: barrier.share };
    for (const p of [...remaining]) {
      if (p.never !== null) wait(p, { state: 'waiting', reservedSince: null, blockedBy: null, detail: p.never });
      else wait(p, { state: 'waiting', reservedSince: null, blockedBy, detail: 'not tried while the reservation holds' });
    }
  } else {
    // S8–S9: smallest dominant share first; one pass is exact, since admitting one only ever takes resources away.
    const order = [...remaining].sort((a, b) => a.share - b.share || a.since - b.since || cmp(a.topo.id, b.topo.id));
    for (const p of order) {
      const ahead = admitted.filter((x) => x.share <= p.share);
      const blockedBy: QueueBlocker | null = ahead.length ? { topology: ahead[ahead.length - 1]!.topo.id, why: 'share', dominantShare: ahead[ahead.length - 1]!.share } : null;
      if (p.never !== null) {
        wait(p, { state: 'waiting', reservedSince: null, blockedBy: null, detail: p.never });
        continue;
      }
      const r = trial(p);
      if (r.ok) {
        admit(p, r.schedule, `HDRF: admitted: dominant share ${fmtShare(p.share)} is the smallest whose request fits (${pending.length} waiting; waited ${secsSince(p.since, now)} s)`);
      } else {
        wait(p, { state: 'waiting', reservedSince: null, blockedBy, detail: r.detail });
      }
    }
  }

  const assignments = new Map<string, TopologySchedule>();
  for (const t of input.topologies) assignments.set(t.id, results.get(t.id)!);
  return { assignments };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * What is held, in all and per topology ('' for untagged slots): each port's
 * first claim on a known supervisor, as the SlotPool counts them.
 */
function usage(input: ScheduleInput, occupied: readonly OccupiedSlot[]): { used: ResourceVector; useOf: Map<string, ResourceVector> } {
  const known = new Set(input.cluster.supervisors.map((s) => s.id));
  const seen = new Set<string>();
  const used = vec();
  const useOf = new Map<string, ResourceVector>();
  for (const o of occupied) {
    const key = `${o.supervisorId}:${o.port}`;
    if (!known.has(o.supervisorId) || seen.has(key)) continue;
    seen.add(key);
    addInto(used, o.resources);
    const id = o.topologyId ?? '';
    let u = useOf.get(id);
    if (!u) useOf.set(id, (u = vec()));
    addInto(u, o.resources);
  }
  return { used, useOf };
}

function gpuWorkers(s: TopologySchedule): number {
  return s.workers.reduce((n, w) => n + (w.gpu ? 1 : 0), 0);
}

/** The trial is as complete as the empty-cluster placement: nothing left out, no worker fewer. */
function asWhole(s: TopologySchedule, target: TopologySchedule): boolean {
  return s.unassigned.length === 0 && s.workers.length === target.workers.length && gpuWorkers(s) === gpuWorkers(target);
}

function neverReason(target: TopologySchedule, request: ResourceVector, totals: ResourceVector): string | null {
  const first = target.unassigned[0];
  if (first) return `can never run whole on this cluster, even empty: ${target.unassigned.length} executor(s) would be left out (${first.component}[${first.task}]: ${first.reason})`;
  if (totals.cpu > 0 && request.cpu > totals.cpu + EPS) return `can never run whole on this cluster: it asks ${round2(request.cpu)} cores, the cluster offers ${round2(totals.cpu)}`;
  if (totals.memoryMB > 0 && request.memoryMB > totals.memoryMB + EPS) return `can never run whole on this cluster: it asks ${Math.round(request.memoryMB)} MB, the cluster offers ${Math.round(totals.memoryMB)} MB`;
  return null;
}

function round2(x: number): number {
  return Number(x.toFixed(2));
}

/** What a waiting topology lacks on the free resources (`others` hold the rest). */
function shortfall(input: ScheduleInput, others: readonly OccupiedSlot[], p: Pending, free: ResourceVector): string {
  const pool = new SlotPool(input.cluster, others);
  const want: WorkerAssignment[] = p.target.workers;
  const gpuMbs = want.filter((w) => w.gpu).map((w) => w.resources?.gpuMemoryMB ?? 0);
  let largest = 0;
  let freeMem = 0;
  for (const g of pool.gpus) {
    if (g.used >= g.slots || pool.freePorts(pool.nodes[g.node]!) === 0) continue;
    const free = g.memTotal > 0 ? g.memTotal - g.memUsed : Infinity;
    largest = Math.max(largest, free);
    freeMem += free;
  }
  const items: string[] = [];
  if (pool.freePortCount < want.length) items.push(`ports (needs ${want.length}, ${pool.freePortCount} free)`);
  if (pool.gpuCapacity < gpuMbs.length) items.push(`GPU slots (needs ${gpuMbs.length}, ${pool.gpuCapacity} free with a port beside them)`);
  const most = Math.max(0, ...gpuMbs);
  const all = gpuMbs.reduce((a, b) => a + b, 0);
  if (pool.gpuCapacity > 0 && most > largest) items.push(`GPU memory (a GPU worker needs ${most} MB, the most free on a GPU with a free slot is ${largest} MB)`);
  else if (pool.gpuCapacity > 0 && all > freeMem) items.push(`GPU memory (needs ${all} MB in all, ${freeMem} MB free on GPUs with a free slot)`);
  const totals = clusterTotals(input.cluster.supervisors);
  if (totals.cpu > 0 && p.request.cpu > free.cpu + EPS) items.push(`cores (needs ${round2(p.request.cpu)}, ${round2(Math.max(0, free.cpu))} free)`);
  if (totals.memoryMB > 0 && p.request.memoryMB > free.memoryMB + EPS) items.push(`memory (needs ${Math.round(p.request.memoryMB)} MB, ${Math.round(Math.max(0, free.memoryMB))} MB free)`);
  if (!items.length) return 'the free ports, GPU slots and GPU memory are spread so that it cannot be placed whole';
  return `short of ${items.join('; ')}`;
}
