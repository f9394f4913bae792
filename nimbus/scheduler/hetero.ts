/**
 * The `hetero` strategy: H-Storm's Algorithm 1.
 *
 *   for each topology (priority order):
 *     GPU executors → numGpuWorkers GPU workers   (Algorithm 2, α)
 *     GPU workers   → GPU slots                   (Algorithm 3, β)
 *   then, for each topology:
 *     remaining CPU executors (ackers included) → first the room left under N in
 *     its GPU workers (co-location saves a hop), then its CPU workers (Algorithm 2);
 *     CPU workers → free ports in Storm's interleaved order.
 *
 * GPU placement runs for every topology before any CPU worker is placed, as in
 * the paper's Algorithm 1 (line 10 comes after the loop): otherwise an early
 * topology's CPU workers could take the ports a later GPU worker needs next to its GPU.
 */
import type { ExecutorRef, UnassignedExecutor, WorkerAssignment } from '../../common/assignment.js';
import { describeCap, packExecutors, Packer, workerCap, type PackWorker, type WorkerCap } from './alpha.js';
import { GpuScoreIndex, type GpuPick } from './beta.js';
import { Interleave } from './interleave.js';
import {
  cpuBackendTag,
  gpuMemoryOf,
  needsGpuReason,
  noGpuReason,
  packComponents,
  planTopology,
  unassigned,
  workerRecord,
  type TopologyPlan,
} from './plan.js';
import { SlotPool } from './slot-pool.js';
import type { ScheduleInput, ScheduleResult } from './types.js';

interface GpuPart {
  workers: PackWorker[];
  cap: WorkerCap;
  packer: Packer;
  picks: GpuPick[];
  /** Set when CPU executors had to go beyond N into the GPU workers. */
  overflow: string | null;
}

interface CpuSlot {
  node: number;
  port: number;
  round: number;
}

interface State {
  plan: TopologyPlan;
  gpu: GpuPart | null;
  /** GPU executors that run in CPU workers, and why. */
  fallback: ExecutorRef[];
  fallbackWhy: string;
  notes: string[];
  unassigned: UnassignedExecutor[];
  cpu: { workers: PackWorker[]; cap: WorkerCap; slots: CpuSlot[] } | null;
}

export function scheduleHetero(input: ScheduleInput): ScheduleResult {
  const pool = new SlotPool(input.cluster, input.occupied);
  const gpuIndex = new GpuScoreIndex(pool);
  const ports = new Interleave(pool.nodes.map((n) => pool.freePorts(n)));
  pool.onChange((n) => ports.setCap(n.index, pool.freePorts(n)));

  const states: State[] = input.topologies.map((t) => ({
    plan: planTopology(t),
    gpu: null,
    fallback: [],
    fallbackWhy: '',
    notes: [],
    unassigned: [],
    cpu: null,
  }));

  for (const st of states) placeGpuExecutors(st, pool, gpuIndex, input.gpuFallbackToCpu === true);
  for (const st of states) placeCpuExecutors(st, pool, ports);

  const assignments = new Map<string, { workers: WorkerAssignment[]; unassigned: UnassignedExecutor[] }>();
  for (const st of states) assignments.set(st.plan.topo.id, { workers: records(st, pool), unassigned: st.unassigned });
  return { assignments };
}

function placeGpuExecutors(st: State, pool: SlotPool, gpuIndex: GpuScoreIndex, fallbackToCpu: boolean): void {
  const { plan } = st;
  const eg = plan.gpuExecutors.length;
  if (eg === 0) {
    if (plan.g > 0) st.notes.push(`topology.gpu.workers=${plan.g} not used: the topology has no GPU component`);
    return;
  }
  const geff = Math.min(plan.g, eg, pool.gpuCapacity);
  if (geff === 0) {
    noGpuFor(st, plan.gpuExecutors, noGpuReason(plan, pool.gpuCapacity), fallbackToCpu);
    return;
  }
  if (geff < plan.g) {
    st.notes.push(
      eg < plan.g
        ? `${geff} GPU workers instead of ${plan.g}: only ${eg} GPU executors`
        : `${geff} GPU workers instead of ${plan.g}: only ${geff} GPU slots were free`,
    );
  }
  const packed = packExecutors(packComponents(plan, plan.gpuExecutors), geff, plan.topo.alpha);
  const packedWorkers = nonEmpty(packed.workers, packed.cap, st.notes, 'GPU');
  // Largest GPU memory first (first-fit decreasing): when memory is tight, more workers find a GPU.
  // With no memory declared every need is 0 and the (stable) order is Algorithm 3's.
  const needs = packedWorkers.map((w) => gpuMemoryOf(plan, w.executors));
  const order = packedWorkers.map((_, i) => i).sort((a, b) => needs[b]! - needs[a]!);
  const workers: PackWorker[] = [];
  const picks: GpuPick[] = [];
  const homeless: ExecutorRef[] = [];
  let largestMissed = 0;
  for (const i of order) {
    // gpuCapacity counted a free slot with a free port for each of the geff workers; only memory can refuse one.
    const pick = gpuIndex.pick(plan.topo.beta, needs[i]!);
    if (pick) {
      workers.push(packedWorkers[i]!);
      picks.push(pick);
    } else {
      if (needs[i]! === 0) throw new Error('internal: GPU capacity and the GPU score index disagree');
      homeless.push(...packedWorkers[i]!.executors);
      largestMissed = Math.max(largestMissed, needs[i]!);
    }
  }
  if (homeless.length) {
    const why = `no GPU with a free slot has ${largestMissed} MB of GPU memory free (${workers.length} of ${packedWorkers.length} GPU workers placed)`;
    st.notes.push(why);
    noGpuFor(st, homeless, why, fallbackToCpu);
  }
  if (!workers.length) return;
  st.gpu = { workers, cap: packed.cap, packer: new Packer(workers, packed.cap.n), picks, overflow: null };
}

/** GPU executors that got no GPU worker: to CPU workers on a CPU backend if allowed, else unassigned with why. */
function noGpuFor(st: State, xs: readonly ExecutorRef[], why: string, fallbackToCpu: boolean): void {
  if (fallbackToCpu) {
    st.fallback.push(...xs);
    st.fallbackWhy = why;
  } else {
    st.unassigned.push(...unassigned(xs, needsGpuReason(why)));
  }
}

function placeCpuExecutors(st: State, pool: SlotPool, ports: Interleave): void {
  const { plan } = st;
  const tag = cpuBackendTag(st.fallbackWhy);
  const fallback = new Set(st.fallback);
  const cpuExecs = fallback.size ? plan.topo.executors.filter((x) => fallback.has(x) || !plan.gpuComponents.has(x.component)) : plan.cpuExecutors;
  const tagFor = (c: string): string | null => (plan.gpuComponents.has(c) ? tag : null);
  // A GPU executor that found no GPU slot (or memory) must not land in a GPU worker: it would run on that GPU.
  const intoGpuWorkers = (xs: ExecutorRef[], gpu: GpuPart, why: string): ExecutorRef[] => [
    ...gpu.packer.place(packComponents(plan, xs.filter((x) => !fallback.has(x)), () => why)),
    ...xs.filter((x) => fallback.has(x)),
  ];
  let left: ExecutorRef[] = cpuExecs;
  if (st.gpu && left.length) left = intoGpuWorkers(left, st.gpu, 'CPU executor in room left under N');
  if (!left.length) return;

  // Workers not used as GPU workers (no GPU component, too few GPU executors or GPU slots) run as CPU workers.
  const c = plan.w - (st.gpu ? st.gpu.workers.length : 0);
  const ceff = Math.min(c, left.length, pool.freePortCount);
  if (ceff > 0) {
    if (ceff < c && ceff < left.length) st.notes.push(`${ceff} CPU workers instead of ${c}: only ${ceff} free ports`);
    const packed = packExecutors(packComponents(plan, left, tagFor), ceff, plan.topo.alpha);
    const workers = nonEmpty(packed.workers, packed.cap, st.notes, 'CPU');
    const slots: CpuSlot[] = ports
      .first(workers.length)
      .map((s) => ({ node: s.node, round: s.round, port: pool.takePort(pool.nodes[s.node]!) }));
    st.cpu = { workers, cap: packed.cap, slots };
    left = packed.left;
  }
  if (!left.length) return;

  const why = c === 0 ? `topology.workers=${plan.w} are all GPU workers` : 'no free port is left for CPU workers';
  if (st.gpu) {
    // Use what exists, as Storm does with too few slots: the GPU workers take the rest above N.
    const inGpu = st.gpu.workers.reduce((s, w) => s + w.load, 0);
    const cap = workerCap(inGpu + left.length, st.gpu.workers.length, plan.topo.alpha);
    st.gpu.packer.cap = cap.n;
    st.gpu.overflow = `${why}: CPU executors share the GPU workers, cap raised to ${describeCap(cap)}`;
    left = intoGpuWorkers(left, st.gpu, 'CPU executor over the GPU-phase N');
  }
  for (const x of left) {
    const reason = fallback.has(x)
      ? `${needsGpuReason(st.fallbackWhy)}; and no CPU worker is left to run it on a CPU backend: ${why}`
      : `no worker for this executor: ${why} (topology asked for ${plan.w} workers)`;
    st.unassigned.push({ component: x.component, task: x.task, reason });
  }
}

/**
 * Workers Algorithm 2 left empty (a large α packs connected executors into
 * fewer workers than W, as the paper notes) take no slot.
 */
function nonEmpty(workers: PackWorker[], cap: WorkerCap, notes: string[], kind: string): PackWorker[] {
  const used = workers.filter((w) => w.load > 0);
  if (used.length < workers.length) {
    notes.push(`α=${cap.alpha} packed the ${kind} executors into ${used.length} of ${workers.length} ${kind} workers`);
  }
  return used;
}

function records(st: State, pool: SlotPool): WorkerAssignment[] {
  const out: WorkerAssignment[] = [];
  const notes = st.notes.length ? `; ${st.notes.join('; ')}` : '';
  if (st.gpu) {
    const g = st.gpu;
    g.workers.forEach((w, i) => {
      const pick = g.picks[i]!;
      const reason =
        `GPU worker ${i + 1}/${g.workers.length}: Algorithm 2 ${describeCap(g.cap)}` +
        (g.overflow ? ` (${g.overflow})` : '') +
        `; ${pick.reason}; executors: ${w.describe()}${notes}`;
      out.push(workerRecord(st.plan, pool.nodes[pick.gpu.node]!, pick.port, pick.gpu, w.executors, reason));
    });
  }
  if (st.cpu) {
    const c = st.cpu;
    c.workers.forEach((w, i) => {
      const s = c.slots[i]!;
      const node = pool.nodes[s.node]!;
      const reason =
        `CPU worker ${i + 1}/${c.workers.length}: Algorithm 2 ${describeCap(c.cap)}; ` +
        `port from the interleaved free slots (${node.id}'s free slot #${s.round + 1}); executors: ${w.describe()}${notes}`;
      out.push(workerRecord(st.plan, node, s.port, null, w.executors, reason));
    });
  }
  return out;
}
