/**
 * What a waiting topology lacks (HDRF's reasons, and the resource kinds a
 * reservation holds), and which GPUs a reservation holds: as many as it needs
 * GPU workers, those with the most free memory, claimed so that no other
 * topology's trial can place a worker there while they drain.
 */
import type { WorkerAssignment } from '../../common/assignment.js';
import type { ResourceVector } from '../../common/resources.js';
import { describeGpuWorkers } from './queue-text.js';
import { SlotPool, type PoolGpu } from './slot-pool.js';
import type { OccupiedSlot, ScheduleInput, TopologySchedule } from './types.js';

/** Resource comparisons tolerate binary rounding (0.1 + 0.2 cores). */
export const EPS = 1e-9;

export function round2(x: number): number {
  return Number(x.toFixed(2));
}

/** What a shortfall is computed for: its whole placement on the empty cluster and its total request. */
export interface Wanted {
  target: TopologySchedule;
  request: ResourceVector;
}

/** GPUs a reservation holds: slot-filling and port-taking claims others' trials see as occupied. */
export interface GpuHold {
  guard: OccupiedSlot[];
  /** e.g. "GPU g1@s2 (6144 MB free)". */
  names: string[];
}

/**
 * The `k` GPUs a reservation needing k GPU workers holds: those with a free
 * slot and port first, then most free memory (unknown memory counts as most),
 * then (node id, GPU id). Held GPUs get claims on every slot left (on no real
 * port) and one real port beside each, so no one else places a worker there.
 */
export function holdGpus(input: ScheduleInput, others: readonly OccupiedSlot[], k: number): GpuHold {
  if (k === 0) return { guard: [], names: [] };
  const pool = new SlotPool(input.cluster, others);
  const free = (g: PoolGpu): number => (g.memTotal > 0 ? g.memTotal - g.memUsed : Number.MAX_SAFE_INTEGER);
  const usable = (g: PoolGpu): number => (g.used < g.slots && pool.freePorts(pool.nodes[g.node]!) > 0 ? 1 : 0);
  const held = [...pool.gpus].sort((a, b) => usable(b) - usable(a) || free(b) - free(a) || a.rank - b.rank).slice(0, k);
  const guard: OccupiedSlot[] = [];
  const portsTaken = new Map<number, number>();
  for (const g of held) {
    const node = pool.nodes[g.node]!;
    // Claims on ports no node offers (negative) fill the slots without taking a real port.
    for (let i = g.used; i < g.slots; i++) guard.push({ supervisorId: node.id, port: -1 - guard.length, gpuId: g.info.id });
    const n = portsTaken.get(g.node) ?? 0;
    const port = node.ports[node.ports.length - 1 - n];
    if (port !== undefined && node.ports.length - 1 - n >= node.head) {
      guard.push({ supervisorId: node.id, port, gpuId: null });
      portsTaken.set(g.node, n + 1);
    }
  }
  const names = held.map((g) => `GPU ${g.info.id}@${pool.nodes[g.node]!.id} (${g.memTotal > 0 ? `${free(g)} MB free` : 'memory unknown'})`);
  return { guard, names };
}

/** A resource a topology can be short of; `spread` when none is short in itself but the whole does not fit. */
export type Kind = 'ports' | 'GPU slots' | 'GPU memory' | 'cores' | 'memory' | 'spread';

export interface Shortfall {
  text: string;
  kinds: Set<Kind>;
}

/** The kinds of resources a placement takes (cores and memory only where the cluster counts them). */
export function kindsTaken(s: TopologySchedule, totals: ResourceVector): Set<Kind> {
  const k = new Set<Kind>();
  for (const w of s.workers) {
    k.add('ports');
    if (w.gpu) k.add('GPU slots');
    if (w.gpu && (w.resources?.gpuMemoryMB ?? 0) > 0) k.add('GPU memory');
    if (totals.cpu > 0 && (w.resources?.cpu ?? 0) > 0) k.add('cores');
    if (totals.memoryMB > 0 && (w.resources?.memoryMB ?? 0) > 0) k.add('memory');
  }
  return k;
}

/** What a waiting topology lacks on the free resources (`others` hold the rest). */
export function shortfall(input: ScheduleInput, others: readonly OccupiedSlot[], p: Wanted, free: ResourceVector, totals: ResourceVector): Shortfall {
  const pool = new SlotPool(input.cluster, others);
  const want: WorkerAssignment[] = p.target.workers;
  const gpuMbs = want.filter((w) => w.gpu).map((w) => w.resources?.gpuMemoryMB ?? 0);
  let largest = 0;
  let freeMem = 0;
  // GPUs a worker could go to now: free memory and free slots (bounded by the ports beside them).
  const open: { mem: number; slots: number }[] = [];
  for (const g of pool.gpus) {
    const ports = pool.freePorts(pool.nodes[g.node]!);
    if (g.used >= g.slots || ports === 0) continue;
    const free = g.memTotal > 0 ? g.memTotal - g.memUsed : Infinity;
    largest = Math.max(largest, free);
    freeMem += free;
    open.push({ mem: free, slots: Math.min(g.slots - g.used, ports) });
  }
  // First-fit decreasing, as the placement goes: the largest worker to the GPU with the most free memory.
  let packs = true;
  for (const need of [...gpuMbs].sort((a, b) => b - a)) {
    const best = open.filter((o) => o.slots > 0).sort((a, b) => b.mem - a.mem)[0];
    if (!best || best.mem < need) {
      packs = false;
      break;
    }
    best.mem -= need;
    best.slots--;
  }
  const items: string[] = [];
  const kinds = new Set<Kind>();
  const add = (k: Kind, text: string): void => {
    kinds.add(k);
    items.push(text);
  };
  if (pool.freePortCount < want.length) add('ports', `ports (needs ${want.length}, ${pool.freePortCount} free)`);
  if (pool.gpuCapacity < gpuMbs.length) add('GPU slots', `GPU slots (needs ${gpuMbs.length}, ${pool.gpuCapacity} free with a port beside them)`);
  const most = Math.max(0, ...gpuMbs);
  const all = gpuMbs.reduce((a, b) => a + b, 0);
  if (pool.gpuCapacity > 0 && most > largest) add('GPU memory', `GPU memory (a GPU worker needs ${most} MB, the most free on a GPU with a free slot is ${largest} MB)`);
  else if (pool.gpuCapacity > 0 && all > freeMem) add('GPU memory', `GPU memory (needs ${all} MB in all, ${freeMem} MB free on GPUs with a free slot)`);
  else if (pool.gpuCapacity >= gpuMbs.length && !packs) add('GPU memory', `GPU memory (${describeGpuWorkers(gpuMbs)} do not fit the GPUs' free memory, largest first)`);
  if (totals.cpu > 0 && p.request.cpu > free.cpu + EPS) add('cores', `cores (needs ${round2(p.request.cpu)}, ${round2(Math.max(0, free.cpu))} free)`);
  if (totals.memoryMB > 0 && p.request.memoryMB > free.memoryMB + EPS) add('memory', `memory (needs ${Math.round(p.request.memoryMB)} MB, ${Math.round(Math.max(0, free.memoryMB))} MB free)`);
  if (!items.length) return { text: 'the free ports, GPU slots and GPU memory are spread so that it cannot be placed whole', kinds: new Set(['spread']) };
  return { text: `short of ${items.join('; ')}`, kinds };
}
