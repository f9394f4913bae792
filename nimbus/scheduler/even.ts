/**
 * The `even` strategy: Storm's default EvenScheduler, our baseline.
 *
 * Per topology, in priority order: executors (task order) are dealt
 * round-robin into the workers; workers take the cluster's free slots in
 * interleaved order (node1-slot1, node2-slot1, …, node1-slot2, …, nodes by id)
 * and the first W are used. GPU components are handled naively: the first
 * numGpuWorkers workers take GPU slots in the same interleaved order (on each
 * node, the first GPU with a free slot), GPU executors are dealt over them and
 * every other executor over the CPU workers (over all workers if there are none).
 * Declared GPU memory is respected: a GPU worker skips slots whose GPU has too
 * little memory left, and one that finds none leaves its executors unassigned
 * (or on the CPU backend with fallback).
 */
import type { ExecutorRef, UnassignedExecutor, WorkerAssignment } from '../../common/assignment.js';
import { Interleave } from './interleave.js';
import { cpuBackendTag, gpuMemoryOf, needsGpuReason, noGpuReason, planTopology, unassigned, workerRecord, type TopologyPlan } from './plan.js';
import { SlotPool, type PoolGpu } from './slot-pool.js';
import type { ScheduleInput, ScheduleResult } from './types.js';

interface EvenWorker {
  node: number;
  port: number;
  gpu: PoolGpu | null;
  round: number;
  executors: ExecutorRef[];
  /** Components here whose kernels run on the CPU backend. */
  cpuBackend: Set<string>;
}

export function scheduleEven(input: ScheduleInput): ScheduleResult {
  const pool = new SlotPool(input.cluster, input.occupied);
  const ports = new Interleave(pool.nodes.map((n) => pool.freePorts(n)));
  const gpuSlots = new Interleave(pool.nodes.map((n) => pool.gpuCap(n)));
  pool.onChange((n) => {
    ports.setCap(n.index, pool.freePorts(n));
    gpuSlots.setCap(n.index, pool.gpuCap(n));
  });
  const fallbackToCpu = input.gpuFallbackToCpu === true;
  const assignments = new Map<string, { workers: WorkerAssignment[]; unassigned: UnassignedExecutor[] }>();

  for (const t of input.topologies) {
    const plan = planTopology(t);
    const notes: string[] = [];
    const lost: UnassignedExecutor[] = [];
    const gpuWorkers: EvenWorker[] = [];
    const eg = plan.gpuExecutors.length;
    let fallback = new Set<ExecutorRef>();
    let tag = '';
    let fallbackWhy = '';

    if (eg > 0) {
      const geff = Math.min(plan.g, eg, pool.gpuCapacity);
      if (geff === 0) {
        const why = noGpuReason(plan, pool.gpuCapacity);
        if (fallbackToCpu) {
          fallback = new Set(plan.gpuExecutors);
          tag = cpuBackendTag(why);
          fallbackWhy = why;
        } else {
          lost.push(...unassigned(plan.gpuExecutors, needsGpuReason(why)));
        }
      } else {
        if (geff < plan.g) notes.push(`${geff} GPU workers instead of ${plan.g}: ${eg < plan.g ? `only ${eg} GPU executors` : `only ${geff} GPU slots were free`}`);
        // Executors are dealt first (executor i → worker i mod G) so each worker's GPU memory is known when it takes a slot.
        const dealt: ExecutorRef[][] = Array.from({ length: geff }, () => []);
        plan.gpuExecutors.forEach((x, i) => dealt[i % geff]!.push(x));
        const needs = dealt.map((xs) => gpuMemoryOf(plan, xs));
        const homeless: ExecutorRef[] = [];
        let largestMissed = 0;
        if (needs.every((m) => m === 0)) {
          for (const s of gpuSlots.first(geff)) {
            const node = pool.nodes[s.node]!;
            const gpu = pool.firstFreeGpu(node)!;
            const port = pool.takeGpuSlot(gpu);
            gpuWorkers.push({ node: s.node, port, gpu, round: s.round, executors: dealt[gpuWorkers.length]!, cpuBackend: new Set() });
          }
        } else {
          // The interleaved order of the slots free now; a node skipped for memory keeps its place for the next worker.
          const order = gpuSlots.first(pool.gpuCapacity);
          const used = new Set<number>();
          for (let w = 0; w < geff; w++) {
            let placed = false;
            for (let k = 0; k < order.length; k++) {
              if (used.has(k)) continue;
              const s = order[k]!;
              const node = pool.nodes[s.node]!;
              if (pool.gpuCap(node) === 0) continue;
              const gpu = pool.firstFreeGpu(node, needs[w]!);
              if (!gpu) continue;
              const port = pool.takeGpuSlot(gpu, needs[w]!);
              gpuWorkers.push({ node: s.node, port, gpu, round: s.round, executors: dealt[w]!, cpuBackend: new Set() });
              used.add(k);
              placed = true;
              break;
            }
            if (!placed) {
              homeless.push(...dealt[w]!);
              largestMissed = Math.max(largestMissed, needs[w]!);
            }
          }
        }
        if (homeless.length) {
          const why = `no GPU with a free slot has ${largestMissed} MB of GPU memory free (${gpuWorkers.length} of ${geff} GPU workers placed)`;
          notes.push(why);
          if (fallbackToCpu) {
            fallback = new Set(homeless);
            tag = cpuBackendTag(why);
            fallbackWhy = why;
          } else {
            lost.push(...unassigned(homeless, needsGpuReason(why)));
          }
        }
      }
    } else if (plan.g > 0) {
      notes.push(`topology.gpu.workers=${plan.g} not used: the topology has no GPU component`);
    }

    const cpuExecs = fallback.size ? plan.topo.executors.filter((x) => fallback.has(x) || !plan.gpuComponents.has(x.component)) : plan.cpuExecutors;
    const cpuWorkers: EvenWorker[] = [];
    if (cpuExecs.length) {
      // Workers not used as GPU workers (too few GPU executors or GPU slots) run as CPU workers.
      const c = plan.w - gpuWorkers.length;
      const ceff = Math.min(c, cpuExecs.length, pool.freePortCount);
      if (ceff < c && ceff < cpuExecs.length) notes.push(`${ceff} CPU workers instead of ${c}: only ${ceff} free slots`);
      for (const s of ports.first(ceff)) {
        const port = pool.takePort(pool.nodes[s.node]!);
        cpuWorkers.push({ node: s.node, port, gpu: null, round: s.round, executors: [], cpuBackend: new Set() });
      }
      const target = cpuWorkers.length ? cpuWorkers : gpuWorkers;
      if (target.length) {
        let xs = cpuExecs;
        if (!cpuWorkers.length) {
          notes.push('no CPU worker (no free slot or none asked for): other executors dealt over the GPU workers');
          // A GPU executor without a GPU slot (or memory) must not land in a GPU worker: it would run on that GPU.
          xs = cpuExecs.filter((x) => !fallback.has(x));
          const stranded = cpuExecs.filter((x) => fallback.has(x));
          if (stranded.length) lost.push(...unassigned(stranded, `${needsGpuReason(fallbackWhy)}; and no CPU worker is left to run it on a CPU backend`));
        }
        deal(xs, target, fallback, tag);
      } else {
        lost.push(...unassigned(cpuExecs, `no worker for this executor: no free slot is left in the cluster (topology asked for ${plan.w} workers)`));
      }
    }
    assignments.set(t.id, { workers: records(plan, pool, gpuWorkers, cpuWorkers, notes, tag), unassigned: lost });
  }
  return { assignments };
}

function deal(xs: readonly ExecutorRef[], workers: EvenWorker[], cpuBackend: Set<ExecutorRef>, tag: string): void {
  xs.forEach((x, i) => {
    const w = workers[i % workers.length]!;
    w.executors.push(x);
    if (tag && cpuBackend.has(x)) w.cpuBackend.add(x.component);
  });
}

function records(
  plan: TopologyPlan,
  pool: SlotPool,
  gpuWorkers: EvenWorker[],
  cpuWorkers: EvenWorker[],
  notes: string[],
  tag: string,
): WorkerAssignment[] {
  const total = gpuWorkers.length + cpuWorkers.length;
  const tail = notes.length ? `; ${notes.join('; ')}` : '';
  const rec = (w: EvenWorker, i: number, kind: string): WorkerAssignment => {
    const node = pool.nodes[w.node]!;
    const slot = w.gpu
      ? `interleaved free GPU slots (${node.id}'s GPU slot #${w.round + 1}, first GPU with a free slot: ${w.gpu.info.id})`
      : `interleaved free slots (${node.id}'s free slot #${w.round + 1})`;
    const backend = w.cpuBackend.size ? `; ${[...w.cpuBackend].join(', ')} ${tag}` : '';
    return workerRecord(
      plan,
      node,
      w.port,
      w.gpu,
      w.executors,
      `even: ${kind} worker ${i + 1} of ${total} for ${plan.topo.id}; ${slot}; executors dealt round-robin${backend}${tail}`,
    );
  };
  return [...gpuWorkers.map((w, i) => rec(w, i, 'GPU')), ...cpuWorkers.map((w, i) => rec(w, gpuWorkers.length + i, 'CPU'))];
}
