/**
 * Decides which topologies need (re)scheduling, runs the pure scheduler for
 * exactly those, and returns the assignments that actually change. Healthy
 * topologies are never passed to the scheduler: their slots go in `occupied`,
 * so nothing reshuffles them. A new assignment identical to the current one is
 * dropped, so repeating a round (monitor ticks, duplicate events) writes
 * nothing and no worker restarts.
 */
import { workerKey, type Assignment, type WorkerAssignment } from '../common/assignment.js';
import type { SupervisorInfo } from '../common/resources.js';
import type { StormBase } from '../common/storm-base.js';
import { computeTasks } from '../common/topology-def.js';
import { schedule } from './scheduler/index.js';
import type { OccupiedSlot, SchedTopology, SchedulerStrategy } from './scheduler/types.js';
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
  if (freeSlots > 0) {
    if (current.unassigned.length > 0) return `${current.unassigned.length} executor(s) unassigned and ${freeSlots} slot(s) free`;
    const want = Math.min(Number(storm.config['topology.workers'] ?? 1), executorCount(storm));
    if (current.workers.length < want) return `${current.workers.length} of ${want} workers placed and ${freeSlots} slot(s) free`;
  }
  return null;
}

function executorCount(storm: StormBase): number {
  const ackers = storm.config['topology.acker.executors'];
  const workers = Number(storm.config['topology.workers'] ?? 1);
  return computeTasks(storm.def, typeof ackers === 'number' ? ackers : workers).length;
}

function isAlive(w: WorkerAssignment, sups: ReadonlyMap<string, SupervisorInfo>): boolean {
  const sup = sups.get(w.supervisorId);
  return !!sup && sup.ports.includes(w.port);
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

  const rescheduled = new Set(todo.map((t) => t.storm.id));
  const occupied: OccupiedSlot[] = [];
  const taken = new Set<string>();
  for (const a of input.assignments.values()) {
    if (rescheduled.has(a.topologyId)) continue;
    for (const w of a.workers) {
      if (!isAlive(w, input.supervisors)) continue;
      occupied.push({ supervisorId: w.supervisorId, port: w.port, gpuId: w.gpu?.gpuId ?? null });
      taken.add(workerKey(w));
    }
  }
  for (const key of input.badSlots) {
    if (taken.has(key)) continue;
    const i = key.lastIndexOf(':');
    occupied.push({ supervisorId: key.slice(0, i), port: Number(key.slice(i + 1)), gpuId: null });
  }

  const topologies: SchedTopology[] = todo.map((t) => schedTopologyFor(t.storm));
  const result = schedule(
    {
      cluster: {
        supervisors: [...input.supervisors.values()].map((s) => ({ id: s.id, host: s.host, ports: s.ports, gpus: s.gpus })),
      },
      topologies,
      occupied,
      gpuFallbackToCpu: input.gpuFallbackToCpu,
    },
    input.strategy,
  );

  const changes: PlacementChange[] = [];
  for (const { storm, why } of todo) {
    const placed = result.assignments.get(storm.id);
    if (!placed) continue;
    const current = input.assignments.get(storm.id);
    if (current && samePlacement(current, placed.workers, placed.unassigned)) continue;
    changes.push({
      topologyId: storm.id,
      why,
      assignment: {
        topologyId: storm.id,
        epoch: (current?.epoch ?? 0) + 1,
        workers: placed.workers,
        unassigned: placed.unassigned,
        scheduler: input.strategy,
        createdAt: input.now,
      },
    });
  }
  return changes;
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
