/**
 * Decides which topologies need (re)scheduling, runs the pure scheduler for
 * exactly those, and returns the assignments that actually change. Healthy
 * topologies are never passed to the scheduler: their slots go in `occupied`,
 * so nothing reshuffles them. A new assignment identical to the current one is
 * dropped, so repeating a round (monitor ticks, duplicate events) writes
 * nothing and no worker restarts.
 *
 * A topology that lost some of its workers (a node gone, workers dead) keeps
 * the others untouched, as Storm does: only the executors it lost are placed
 * again, on the slots left, so losing one node restarts no worker elsewhere.
 *
 * With HDRF (`fairness`), every live worker goes in `occupied` tagged with its
 * topology (the shares come from them), a waiting topology is reconsidered in
 * every round, and one that does not fit waits in the queue: a new topology
 * starts nothing; a running one that lost workers (or asked to rebalance)
 * keeps the workers it still has — nothing that runs is stopped for want of
 * room — and its lost executors wait with the queue's reason.
 */
import { workerKey, type Assignment, type QueueEntry, type WorkerAssignment } from '../common/assignment.js';
import { withDefaults } from '../common/config/index.js';
import type { ResourceVector, SupervisorInfo } from '../common/resources.js';
import type { StormBase } from '../common/storm-base.js';
import { computeTasks } from '../common/topology-def.js';
import { schedule } from './scheduler/index.js';
import type { FairnessOptions, OccupiedSlot, SchedTopology, SchedulerStrategy } from './scheduler/types.js';
import { schedTopologyFor } from './sched-topology.js';

export interface PlacementInput {
  supervisors: ReadonlyMap<string, SupervisorInfo>;
  storms: ReadonlyMap<string, StormBase>;
  assignments: ReadonlyMap<string, Assignment>;
  /** Slots (workerKey) nobody may take this round: workers found dead there. */
  badSlots: ReadonlySet<string>;
  /** Topology id → workerKeys of its workers found dead: their executors must move. */
  deadWorkers: ReadonlyMap<string, ReadonlySet<string>>;
  /** Topologies to reschedule whatever their state (rebalance). */
  forced: ReadonlySet<string>;
  strategy: SchedulerStrategy;
  /** HDRF between topologies, or null for priority (submission) order. */
  fairness: FairnessOptions | null;
  /** Place GPU executors without a GPU slot in CPU workers (they run on a CPU backend and say so). */
  gpuFallbackToCpu: boolean;
  now: number;
}

export interface PlacementChange {
  topologyId: string;
  /** Why the topology was rescheduled (logged). */
  why: string;
  assignment: Assignment;
}

/** Why `storm` needs scheduling, or null when its assignment is fine. */
export function schedulingReason(storm: StormBase, current: Assignment | undefined, input: PlacementInput, freeSlots: number): string | null {
  if (storm.status === 'killed') return null;
  if (!current) return 'new topology';
  if (input.forced.has(storm.id)) return 'rebalance';
  for (const w of current.workers) {
    const sup = input.supervisors.get(w.supervisorId);
    if (!sup) return `supervisor ${w.supervisorId} is gone`;
    if (!sup.ports.includes(w.port)) return `supervisor ${w.supervisorId} no longer offers port ${w.port}`;
    if (w.gpu && !sup.gpus.some((g) => g.id === w.gpu?.gpuId)) return `GPU ${w.gpu.gpuId} on ${w.supervisorId} is gone`;
  }
  const dead = input.deadWorkers.get(storm.id);
  if (dead && dead.size > 0) return `worker(s) ${[...dead].join(', ')} stopped heartbeating`;
  if (input.fairness && current.queue) return 'waiting in the HDRF queue';
  if (freeSlots > 0) {
    if (current.unassigned.length > 0) return `${current.unassigned.length} executor(s) unassigned and ${freeSlots} slot(s) free`;
    const want = Math.min(withDefaults(storm.config)['topology.workers'], executorCount(storm));
    if (current.workers.length < want) return `${current.workers.length} of ${want} workers placed and ${freeSlots} slot(s) free`;
  }
  return null;
}

function executorCount(storm: StormBase): number {
  const config = withDefaults(storm.config);
  return computeTasks(storm.def, config['topology.acker.executors'] ?? config['topology.workers']).length;
}

function isAlive(w: WorkerAssignment, sups: ReadonlyMap<string, SupervisorInfo>): boolean {
  const sup = sups.get(w.supervisorId);
  return !!sup && sup.ports.includes(w.port);
}

/** Alive, and its GPU (if any) still offered: a worker that can keep running where it is. */
function canStay(w: WorkerAssignment, sups: ReadonlyMap<string, SupervisorInfo>): boolean {
  const sup = sups.get(w.supervisorId);
  return !!sup && sup.ports.includes(w.port) && (!w.gpu || sup.gpus.some((g) => g.id === w.gpu?.gpuId));
}

/** What a worker holds: its record's, or (a record written before resources were tracked) its executors' requests. */
export function workerResources(storm: StormBase | undefined, w: WorkerAssignment, demands?: Map<string, ResourceVector>): ResourceVector {
  if (w.resources) return w.resources;
  const total: ResourceVector = { cpu: 0, memoryMB: 0, gpuMemoryMB: 0 };
  if (!storm) return total;
  const by = demands ?? demandsOf(storm);
  for (const e of w.executors) {
    const d = by.get(e.component);
    if (!d) continue;
    total.cpu += d.cpu;
    total.memoryMB += d.memoryMB;
    if (w.gpu) total.gpuMemoryMB += d.gpuMemoryMB;
  }
  return total;
}

/** What one executor of each component of a stored topology asks for. */
export function demandsOf(storm: StormBase): Map<string, ResourceVector> {
  const out = new Map<string, ResourceVector>();
  for (const c of schedTopologyFor(storm).components) if (c.resources) out.set(c.id, c.resources);
  return out;
}

/** Ports of live supervisors that no assignment holds and no dead worker blocks. */
export function countFreeSlots(input: PlacementInput): number {
  const used = new Set<string>(input.badSlots);
  for (const a of input.assignments.values()) for (const w of a.workers) used.add(workerKey(w));
  let free = 0;
  for (const sup of input.supervisors.values()) {
    for (const port of sup.ports) if (!used.has(workerKey({ supervisorId: sup.id, port }))) free++;
  }
  return free;
}

/** Orders topologies oldest first: they had the cluster first, they keep priority. */
function byLaunch(a: StormBase, b: StormBase): number {
  return a.launchTime - b.launchTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function planPlacement(input: PlacementInput): PlacementChange[] {
  const free = countFreeSlots(input);
  const todo: { storm: StormBase; why: string }[] = [];
  for (const storm of [...input.storms.values()].sort(byLaunch)) {
    const why = schedulingReason(storm, input.assignments.get(storm.id), input, free);
    if (why) todo.push({ storm, why });
  }
  if (todo.length === 0) return [];

  const fair = input.fairness !== null;
  const rescheduled = new Set(todo.map((t) => t.storm.id));
  const occupied: OccupiedSlot[] = [];
  const taken = new Set<string>();
  for (const a of input.assignments.values()) {
    // Without fairness a rescheduled topology gives its slots back; with it, it holds them until admitted.
    if (!fair && rescheduled.has(a.topologyId)) continue;
    const storm = input.storms.get(a.topologyId);
    const dead = input.deadWorkers.get(a.topologyId);
    const demands = storm && a.workers.some((w) => !w.resources) ? demandsOf(storm) : undefined;
    for (const w of a.workers) {
      if (!isAlive(w, input.supervisors) || dead?.has(workerKey(w))) continue;
      occupied.push({
        supervisorId: w.supervisorId,
        port: w.port,
        gpuId: w.gpu?.gpuId ?? null,
        topologyId: a.topologyId,
        resources: workerResources(storm, w, demands),
      });
      taken.add(workerKey(w));
    }
  }
  for (const key of input.badSlots) {
    if (taken.has(key)) continue;
    const i = key.lastIndexOf(':');
    occupied.push({ supervisorId: key.slice(0, i), port: Number(key.slice(i + 1)), gpuId: null });
  }

  // A topology that only lost some workers keeps the rest where they run (as Storm does): its survivors
  // hold their slots and only the lost executors are placed, so a lost node restarts nothing elsewhere.
  const repairs = new Map<string, WorkerAssignment[]>();
  if (!fair) {
    for (const t of todo) {
      const survivors = survivorsOf(t.storm, input);
      if (!survivors) continue;
      repairs.set(t.storm.id, survivors);
      const storm = t.storm;
      const demands = survivors.some((w) => !w.resources) ? demandsOf(storm) : undefined;
      for (const w of survivors) {
        occupied.push({ supervisorId: w.supervisorId, port: w.port, gpuId: w.gpu?.gpuId ?? null, topologyId: storm.id, resources: workerResources(storm, w, demands) });
        taken.add(workerKey(w));
      }
    }
  }

  const topologies: SchedTopology[] = todo.map((t) => {
    const current = input.assignments.get(t.storm.id);
    // Waiting since: as recorded in its queue entry, else its submission (new) or now (it just needs a new placement).
    const waitingSince = current?.queue?.since ?? (current ? input.now : t.storm.launchTime);
    const full = { ...schedTopologyFor(t.storm), waitingSince };
    const survivors = repairs.get(t.storm.id);
    return survivors ? lostPart(full, survivors) : full;
  });
  const result = schedule(
    {
      cluster: {
        supervisors: [...input.supervisors.values()].map((s) => ({ id: s.id, host: s.host, ports: s.ports, gpus: s.gpus, cpuCores: s.cpus, memoryMB: s.memoryMB })),
      },
      topologies,
      occupied,
      gpuFallbackToCpu: input.gpuFallbackToCpu,
      fairness: input.fairness,
      now: input.now,
    },
    input.strategy,
  );

  const changes: PlacementChange[] = [];
  for (const { storm, why } of todo) {
    const placed = result.assignments.get(storm.id);
    if (!placed) continue;
    const current = input.assignments.get(storm.id);
    let workers = placed.workers;
    let unassigned = placed.unassigned;
    const queue = placed.queue ?? null;
    const survivors = repairs.get(storm.id);
    if (survivors) workers = [...survivors, ...workers];
    if (queue && current) {
      // Waiting, but running: what still runs keeps running; what it lost waits with the queue's reason.
      const dead = input.deadWorkers.get(storm.id);
      workers = current.workers.filter((w) => canStay(w, input.supervisors) && !dead?.has(workerKey(w)));
      const kept = new Set(workers.flatMap((w) => w.executors.map((e) => e.task)));
      unassigned = placed.unassigned.filter((u) => !kept.has(u.task));
    }
    if (current && samePlacement(current, workers, unassigned) && sameQueue(current.queue ?? null, queue)) continue;
    changes.push({
      topologyId: storm.id,
      why: queue && !current?.queue ? `${why}; waits in the HDRF queue (${queue.state})` : why,
      assignment: {
        topologyId: storm.id,
        epoch: (current?.epoch ?? 0) + 1,
        workers,
        unassigned,
        scheduler: input.strategy,
        createdAt: input.now,
        queue,
      },
    });
  }
  return changes;
}

/**
 * The workers of a topology that keep running while the rest of it is placed
 * again: those still alive where they are, when the topology lost some (not
 * all) of its workers and was not asked to rebalance. Null: place it whole.
 */
function survivorsOf(storm: StormBase, input: PlacementInput): WorkerAssignment[] | null {
  const current = input.assignments.get(storm.id);
  if (!current || input.forced.has(storm.id) || current.queue) return null;
  const dead = input.deadWorkers.get(storm.id);
  const survivors = current.workers.filter((w) => canStay(w, input.supervisors) && !dead?.has(workerKey(w)));
  if (survivors.length === 0 || survivors.length === current.workers.length) return null;
  return survivors;
}

/** The part of a topology its survivors do not run: its other executors, in the workers it has left to ask for. */
function lostPart(t: SchedTopology, survivors: readonly WorkerAssignment[]): SchedTopology {
  const kept = new Set(survivors.flatMap((w) => w.executors.map((e) => e.task)));
  const gpuSurvivors = survivors.filter((w) => w.gpu).length;
  const numWorkers = Math.max(1, t.numWorkers - survivors.length);
  return {
    ...t,
    executors: t.executors.filter((x) => !kept.has(x.task)),
    numWorkers,
    numGpuWorkers: Math.min(numWorkers, Math.max(0, t.numGpuWorkers - gpuSurvivors)),
  };
}

/** Same queue state (durations are not stored, so an unchanged queue compares equal round after round). */
export function sameQueue(a: QueueEntry | null, b: QueueEntry | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.state === b.state &&
    a.since === b.since &&
    a.reservedSince === b.reservedSince &&
    a.needs === b.needs &&
    a.detail === b.detail &&
    a.dominantShare.toFixed(4) === b.dominantShare.toFixed(4) &&
    a.blockedBy?.topology === b.blockedBy?.topology &&
    a.blockedBy?.why === b.blockedBy?.why
  );
}

function placementKey(workers: readonly WorkerAssignment[], unassigned: readonly { component: string; task: number }[]): string {
  const ws = workers
    .map((w) => ({
      k: workerKey(w),
      gpu: w.gpu?.gpuId ?? null,
      ex: w.executors.map((e) => e.task).sort((a, b) => a - b),
    }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  const un = unassigned.map((e) => e.task).sort((a, b) => a - b);
  return JSON.stringify({ ws, un });
}

/** Same slots, same GPUs, same executors (reasons may differ in wording). */
export function samePlacement(a: Assignment, workers: readonly WorkerAssignment[], unassigned: readonly { component: string; task: number }[]): boolean {
  return placementKey(a.workers, a.unassigned) === placementKey(workers, unassigned);
}
