/**
 * HDRF between topologies (seed 000, Algorithm 1), over a placement strategy
 * within each topology (Algorithms 2–3 of `hetero`, or `even`).
 *
 *   A = the cluster's cores, memory and GPU memory; R_i = what topology i holds
 *   s_i = max(cpu_i / A_cpu, mem_i / A_mem, gpuMem_i / A_gpuMem)    (dominant share)
 *   S7: a waiting topology whose wait passed OT holds a reservation (the
 *       longest-waiting one first): it is admitted as soon as it fits, and
 *       until then what it is short of is held for it. GPUs are held one by
 *       one — as many as it needs GPU workers, those with the most free
 *       memory, each with a port beside it — so no one else adds a worker to
 *       them while they drain; of the other resources (ports, cores, memory)
 *       no one else may take a kind it is short of. Others may still be
 *       admitted with the rest (backfilling) if that leaves it short of
 *       nothing more. When what it lacks cannot be named (free resources
 *       spread too thin), nothing else is admitted, as in Algorithm 1;
 *   S8–S9: then the other waiting topologies go by smallest s_i (ties:
 *       longest wait, then id); each is admitted if its whole request fits
 *       what is free (beside a reservation: what it does not hold), else it
 *       waits with the reason, and the next one is tried.
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
import type { QueueBlocker, QueueEntry, UnassignedExecutor } from '../../common/assignment.js';
import { SchedulingError } from '../../common/errors.js';
import type { ResourceVector } from '../../common/resources.js';
import { scheduleEven } from './even.js';
import { scheduleHetero } from './hetero.js';
import { planTopology } from './plan.js';
import { describeQueue, describeRequest, secsSince, topologyRequest } from './queue-text.js';
import { EPS, holdGpus, kindsTaken, round2, shortfall, type GpuHold, type Kind, type Shortfall } from './reservation.js';
import { addInto, clusterTotals, dominantShare, fmtShare, sub, vec } from './resource-math.js';
import type { OccupiedSlot, PlacementStrategy, ScheduleInput, ScheduleResult, SchedTopology, TopologySchedule } from './types.js';

interface Pending {
  topo: SchedTopology;
  since: number;
  /** Dominant share of what it holds now (its surviving workers; 0 when not started). */
  share: number;
  /** Its placement on the empty cluster: what "whole" means for it. */
  target: TopologySchedule;
  /** Σ of the target's workers' resources. */
  request: ResourceVector;
  /** Its whole request in words (queue-text.ts topologyRequest): what it asks for, not only what could be placed. */
  needs: string;
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
    const plan = planTopology(topo); // checks the topology before anything is tried
    const target = place(topo, []);
    const request = vec();
    for (const w of target.workers) addInto(request, w.resources);
    return {
      topo,
      since: topo.waitingSince ?? now,
      share: dominantShare(useOf.get(topo.id) ?? vec(), totals).share,
      target,
      request,
      needs: describeRequest(topologyRequest(plan, target)),
      never: neverReason(target, request, totals),
    };
  });

  const results = new Map<string, TopologySchedule>();
  const remaining = new Set(pending);
  const admitted: Pending[] = [];

  /** What `p` lacks on the occupied slots `occ` (its own count as free for it). */
  const lacks = (p: Pending, occ: readonly OccupiedSlot[]): Shortfall => {
    const u = usage(input, occ);
    const free = addInto(sub(totals, u.used), u.useOf.get(p.topo.id) ?? vec());
    return shortfall(input, occ.filter((o) => o.topologyId !== p.topo.id), p, free, totals);
  };

  /** Its whole placement on what is free now (its own workers count as free for it; `held` does not), or what it lacks. */
  const trial = (p: Pending, held: readonly OccupiedSlot[] = []): { ok: true; schedule: TopologySchedule } | { ok: false; short: Shortfall } => {
    const others = [...current.filter((o) => o.topologyId !== p.topo.id), ...held];
    const own = useOf.get(p.topo.id) ?? vec();
    const free = addInto(sub(totals, used), own);
    const cpuOk = totals.cpu <= 0 || p.request.cpu <= free.cpu + EPS;
    const memOk = totals.memoryMB <= 0 || p.request.memoryMB <= free.memoryMB + EPS;
    if (cpuOk && memOk) {
      const s = place(p.topo, others);
      if (asWhole(s, p.target)) return { ok: true, schedule: s };
    }
    return { ok: false, short: shortfall(input, others, p, free, totals) };
  };

  /** The occupied slots once `p` holds placement `s` instead of what it holds now. */
  const withPlacement = (p: Pending, s: TopologySchedule): OccupiedSlot[] => [
    ...current.filter((o) => o.topologyId !== p.topo.id),
    ...s.workers.map((w) => ({ supervisorId: w.supervisorId, port: w.port, gpuId: w.gpu?.gpuId ?? null, topologyId: p.topo.id, ...(w.resources && { resources: w.resources }) })),
  ];

  const admit = (p: Pending, s: TopologySchedule, why: string): void => {
    remaining.delete(p);
    admitted.push(p);
    current = withPlacement(p, s);
    ({ used, useOf } = usage(input, current));
    const workers = s.workers.map((w) => ({ ...w, reason: `${why}; ${w.reason}` }));
    results.set(p.topo.id, { workers, unassigned: s.unassigned, queue: null });
  };

  const wait = (p: Pending, q: Omit<QueueEntry, 'since' | 'dominantShare' | 'needs'>): void => {
    remaining.delete(p);
    const entry: QueueEntry = { ...q, since: p.since, dominantShare: p.share, needs: p.needs };
    const reason = `HDRF: ${describeQueue(entry, now)}`;
    const lost: UnassignedExecutor[] = p.topo.executors.map((x) => ({ component: x.component, task: x.task, reason }));
    results.set(p.topo.id, { workers: [], unassigned: lost, queue: entry });
  };

  // S7: reservations, longest wait first; the first one that does not fit holds what it is short of.
  let holder: { p: Pending; short: Shortfall; hold: GpuHold } | null = null;
  for (;;) {
    const next = [...remaining]
      .filter((p) => p.never === null && now - p.since >= ot)
      .sort((a, b) => a.since - b.since || cmp(a.topo.id, b.topo.id))[0];
    if (!next) break;
    const r = trial(next);
    if (r.ok) {
      admit(next, r.schedule, `HDRF: admitted on its reservation (waited ${secsSince(next.since, now)} s, OT ${Math.round(ot / 1000)} s)`);
      continue;
    }
    const hold = holdGpus(input, current.filter((o) => o.topologyId !== next.topo.id), gpuWorkers(next.target));
    holder = { p: next, short: r.short, hold };
    const detail = hold.names.length ? `${r.short.text}; holding ${hold.names.join(', ')} for it` : r.short.text;
    wait(next, { state: 'reserved', reservedSince: next.since + ot, blockedBy: null, detail });
    break;
  }
  /** What the reservation holds by kind: GPU kinds are held GPU by GPU instead when it holds GPUs. */
  const heldKinds = (h: NonNullable<typeof holder>, kinds: Set<Kind>): Kind[] =>
    [...kinds].filter((k) => h.short.kinds.has(k) && !(h.hold.names.length && (k === 'GPU slots' || k === 'GPU memory')));

  // S8–S9: smallest dominant share first; one pass is exact, since admitting one only ever takes resources away.
  const order = [...remaining].sort((a, b) => a.share - b.share || a.since - b.since || cmp(a.topo.id, b.topo.id));
  for (const p of order) {
    if (p.never !== null) {
      wait(p, { state: 'waiting', reservedSince: null, blockedBy: null, detail: p.never });
      continue;
    }
    const ahead = admitted.filter((x) => x.share <= p.share);
    const last = ahead[ahead.length - 1];
    const byShare: QueueBlocker | null = last ? { topology: last.topo.id, why: 'share', dominantShare: last.share } : null;
    if (holder?.short.kinds.has('spread')) {
      const blockedBy: QueueBlocker = { topology: holder.p.topo.id, why: 'reservation', dominantShare: holder.p.share };
      wait(p, { state: 'waiting', reservedSince: null, blockedBy, detail: 'not tried: what the reservation lacks cannot be told apart, so it holds everything free' });
      continue;
    }
    const r = trial(p, holder?.hold.guard);
    if (!r.ok) {
      // Kept off the held GPUs, it does not fit; if it would fit on them, it is the reservation that keeps it waiting.
      const h = holder;
      if (h?.hold.guard.length && trial(p).ok) {
        const blockedBy: QueueBlocker = { topology: h.p.topo.id, why: 'reservation', dominantShare: h.p.share };
        wait(p, { state: 'waiting', reservedSince: null, blockedBy, detail: `the GPUs it would need are held for the reservation (${h.hold.names.join(', ')})` });
      } else {
        wait(p, { state: 'waiting', reservedSince: null, blockedBy: byShare, detail: r.short.text });
      }
      continue;
    }
    if (!holder) {
      admit(p, r.schedule, `HDRF: admitted: dominant share ${fmtShare(p.share)} is the smallest whose request fits (${pending.length} waiting; waited ${secsSince(p.since, now)} s)`);
      continue;
    }
    // Backfill beside the reservation: only with what it is not short of, and leaving it short of nothing more.
    const h = holder;
    const clash = heldKinds(h, kindsTaken(r.schedule, totals));
    const after = clash.length ? null : lacks(h.p, withPlacement(p, r.schedule));
    const worse = after ? [...after.kinds].filter((k) => !h.short.kinds.has(k) && !(h.hold.names.length && (k === 'GPU slots' || k === 'GPU memory'))) : [];
    if (clash.length || worse.length) {
      const blockedBy: QueueBlocker = { topology: h.p.topo.id, why: 'reservation', dominantShare: h.p.share };
      const held = clash.length ? `it would take ${clash.join(', ')}, which the reservation holds` : `it would leave the reservation short of ${worse.join(', ')} too`;
      wait(p, { state: 'waiting', reservedSince: null, blockedBy, detail: held });
      continue;
    }
    const spared = [...h.hold.names, ...heldKinds(h, h.short.kinds)];
    admit(p, r.schedule, `HDRF: admitted beside topology ${h.p.topo.id}'s reservation, taking none of what it holds (${spared.join(', ')}): dominant share ${fmtShare(p.share)} (waited ${secsSince(p.since, now)} s)`);
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

