/**
 * What both strategies need to know about one topology before placing it:
 * checked worker counts, GPU vs CPU executors, the component graph in
 * topological order — and the small helpers that turn placements into the
 * `WorkerAssignment` / `UnassignedExecutor` records nimbus writes.
 */
import type { ExecutorRef, GpuBinding, UnassignedExecutor, WorkerAssignment } from '../../common/assignment.js';
import { SchedulingError } from '../../common/errors.js';
import type { ResourceVector } from '../../common/resources.js';
import type { PackComponent } from './alpha.js';
import { addInto, vec, ZERO } from './resource-math.js';
import type { PoolGpu, PoolNode } from './slot-pool.js';
import { topologicalOrder } from './topo-order.js';
import type { SchedTopology } from './types.js';

export interface TopologyPlan {
  topo: SchedTopology;
  /** W, G after checks. */
  w: number;
  g: number;
  /** Component ids in topological order (components only seen in `executors` come last). */
  order: string[];
  inputsOf: Map<string, readonly string[]>;
  gpuComponents: Set<string>;
  /** Executors in the order given (task order), split by kind. */
  gpuExecutors: ExecutorRef[];
  cpuExecutors: ExecutorRef[];
  /** What one executor of each component asks for. */
  demand: Map<string, ResourceVector>;
}

function checkResources(t: SchedTopology, c: { id: string; resources?: ResourceVector }): void {
  const r = c.resources;
  if (!r) return;
  for (const [k, v] of Object.entries(r)) {
    if (!(typeof v === 'number' && Number.isFinite(v) && v >= 0)) {
      throw new SchedulingError(`topology "${t.id}": component "${c.id}": resources.${k} must be a number ≥ 0, got ${String(v)}`);
    }
  }
}

function checkUnit(t: SchedTopology, name: 'alpha' | 'beta'): void {
  const v = t[name];
  if (!(v >= 0 && v <= 1)) throw new SchedulingError(`topology "${t.id}": ${name} must be in [0, 1], got ${v}`);
}

export function planTopology(t: SchedTopology): TopologyPlan {
  if (!Number.isInteger(t.numWorkers) || t.numWorkers < 1) {
    throw new SchedulingError(`topology "${t.id}": numWorkers must be an integer ≥ 1, got ${t.numWorkers}`);
  }
  if (!Number.isInteger(t.numGpuWorkers) || t.numGpuWorkers < 0 || t.numGpuWorkers > t.numWorkers) {
    throw new SchedulingError(
      `topology "${t.id}": numGpuWorkers must be an integer in [0, numWorkers=${t.numWorkers}], got ${t.numGpuWorkers}`,
    );
  }
  checkUnit(t, 'alpha');
  checkUnit(t, 'beta');
  const graph = t.components.map((c) => ({ id: c.id, inputs: c.inputs }));
  const known = new Set(graph.map((c) => c.id));
  // Executors of an undeclared component (e.g. ackers when not listed) still get placed: no inputs, last.
  for (const x of t.executors) {
    if (!known.has(x.component)) {
      known.add(x.component);
      graph.push({ id: x.component, inputs: [] });
    }
  }
  const gpuComponents = new Set(t.components.filter((c) => c.gpu).map((c) => c.id));
  const inputsOf = new Map<string, readonly string[]>();
  for (const c of graph) if (!inputsOf.has(c.id)) inputsOf.set(c.id, c.inputs);
  const demand = new Map<string, ResourceVector>();
  for (const c of t.components) {
    checkResources(t, c);
    if (c.resources && !demand.has(c.id)) {
      // GPU memory only means something on a GPU worker.
      demand.set(c.id, vec(c.resources.cpu, c.resources.memoryMB, c.gpu ? c.resources.gpuMemoryMB : 0));
    }
  }
  return {
    topo: t,
    w: t.numWorkers,
    g: t.numGpuWorkers,
    order: topologicalOrder(graph),
    inputsOf,
    gpuComponents,
    gpuExecutors: t.executors.filter((x) => gpuComponents.has(x.component)),
    cpuExecutors: t.executors.filter((x) => !gpuComponents.has(x.component)),
    demand,
  };
}

/**
 * What a set of executors asks for. GPU memory is counted only when
 * `gpuWorker` (a GPU executor falling back to a CPU worker holds no GPU memory).
 */
export function sumDemand(plan: TopologyPlan, xs: readonly ExecutorRef[], gpuWorker: boolean): ResourceVector {
  const total = vec();
  for (const x of xs) addInto(total, plan.demand.get(x.component) ?? ZERO);
  if (!gpuWorker) total.gpuMemoryMB = 0;
  return total;
}

/** GPU memory one GPU worker holding these executors needs. */
export function gpuMemoryOf(plan: TopologyPlan, xs: readonly ExecutorRef[]): number {
  let mb = 0;
  for (const x of xs) if (plan.gpuComponents.has(x.component)) mb += plan.demand.get(x.component)?.gpuMemoryMB ?? 0;
  return mb;
}

/** Executors grouped by component, components in topological order, for Algorithm 2. */
export function packComponents(
  plan: TopologyPlan,
  xs: readonly ExecutorRef[],
  tagFor: (component: string) => string | null = () => null,
): PackComponent[] {
  const by = new Map<string, ExecutorRef[]>();
  for (const x of xs) {
    let list = by.get(x.component);
    if (!list) by.set(x.component, (list = []));
    list.push(x);
  }
  const out: PackComponent[] = [];
  for (const id of plan.order) {
    const executors = by.get(id);
    if (executors) out.push({ id, inputs: plan.inputsOf.get(id) ?? [], executors, tag: tagFor(id) });
  }
  return out;
}

export function gpuBinding(g: PoolGpu): GpuBinding {
  const b: GpuBinding = { gpuId: g.info.id, name: g.info.name, index: g.info.index ?? null, source: g.info.source };
  if (g.info.pciBusId) b.pciBusId = g.info.pciBusId;
  return b;
}

export function workerRecord(
  plan: TopologyPlan,
  node: PoolNode,
  port: number,
  gpu: PoolGpu | null,
  executors: readonly ExecutorRef[],
  reason: string,
): WorkerAssignment {
  return {
    supervisorId: node.id,
    host: node.host,
    port,
    gpu: gpu ? gpuBinding(gpu) : null,
    executors: [...executors].sort((a, b) => a.task - b.task).map((x) => ({ component: x.component, task: x.task })),
    reason,
    resources: sumDemand(plan, executors, gpu !== null),
  };
}

export function unassigned(xs: readonly ExecutorRef[], reason: string): UnassignedExecutor[] {
  return xs.map((x) => ({ component: x.component, task: x.task, reason }));
}

/** Why GPU executors could not get a GPU worker, as both strategies say it. */
export function noGpuReason(plan: TopologyPlan, gpuCapacity: number): string {
  if (plan.g === 0) return 'topology.gpu.workers is 0';
  return gpuCapacity === 0
    ? 'no GPU slot was free (every GPU is full or its node has no free port)'
    : 'no GPU worker could be placed';
}

/** Tag carried by GPU executors running in a CPU worker. */
export function cpuBackendTag(why: string): string {
  return `runs on the CPU backend because no GPU slot was available: ${why}`;
}

/** Reason of a GPU executor left unassigned. */
export function needsGpuReason(why: string): string {
  return `GPU component needs a GPU worker and none was available: ${why}; free a GPU slot, raise topology.gpu.workers, or allow CPU fallback`;
}
