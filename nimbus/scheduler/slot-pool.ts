/**
 * The free capacity of the cluster during one scheduling call: each node's
 * free ports and each GPU's used slots and GPU memory. Every worker placed by
 * either strategy goes through `takePort` (and `takeGpuSlot` for a GPU
 * worker), so the capacity rules hold by construction: a port is handed out
 * once, a GPU never above its slots nor its memory (HDRF §2.3: several GPU
 * workers share a GPU while their declared GPU memory fits), and a node's GPU
 * + CPU workers never above its ports (each takes a port).
 *
 * Index structures (interleaved free slots, GPU score buckets) subscribe to
 * changes instead of rescanning the cluster per topology: that is what keeps
 * 10 000 nodes × 1 000 topologies linear.
 */
import type { GpuInfo } from '../../common/resources.js';
import { gpuPerformance } from '../../common/resources.js';
import { SchedulingError } from '../../common/errors.js';
import type { OccupiedSlot, SchedulerCluster } from './types.js';

export interface PoolGpu {
  /** Index of the node in `SlotPool.nodes`. */
  node: number;
  /** Position in (node id, GPU id) order: the tie-break of Algorithm 3. */
  rank: number;
  info: GpuInfo;
  /** A: slots of this GPU. */
  slots: number;
  /** U: slots in use (occupied ones included). */
  used: number;
  /** GPU memory of the board, MB; 0 = unknown: then memory is not checked, only slots. */
  memTotal: number;
  /** GPU memory the workers on it declared, MB (occupied ones included). */
  memUsed: number;
  /** smCount × coresPerSm × clockMHz divided by the cluster's largest. */
  perfNorm: number;
}

export interface PoolNode {
  index: number;
  id: string;
  host: string;
  /** Ports not occupied at the start, ascending; ports before `head` were handed out. Never written to. */
  readonly ports: readonly number[];
  head: number;
  /** GPUs sorted by id. */
  gpus: PoolGpu[];
  /** Σ free slots over this node's GPUs. */
  gpuFree: number;
}

export type PoolListener = (node: PoolNode) => void;

/** Plain `<` order: deterministic whatever the locale (localeCompare is not). */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ports ascending, without repeats or busy ones; the common case (already sorted, none busy) is one pass. */
function freePortsOf(ports: readonly number[], busy: Set<number> | undefined): readonly number[] {
  let sorted = true;
  for (let k = 1; k < ports.length; k++) {
    if (!(ports[k - 1]! < ports[k]!)) {
      sorted = false;
      break;
    }
  }
  // Shared, not copied: the pool never writes to a node's port list (it moves `head`).
  if (sorted && !busy) return ports;
  return [...new Set(ports)].filter((p) => !busy?.has(p)).sort((a, b) => a - b);
}

function sortedById<T extends { id: string }>(xs: readonly T[]): readonly T[] {
  for (let k = 1; k < xs.length; k++) {
    if (!(xs[k - 1]!.id < xs[k]!.id)) return [...xs].sort((a, b) => compareIds(a.id, b.id));
  }
  return xs;
}

export class SlotPool {
  readonly nodes: PoolNode[];
  readonly gpus: PoolGpu[];
  /** Σ free ports over all nodes. */
  freePortCount = 0;
  /** Σ over nodes of min(free ports, free GPU slots): how many more GPU workers fit. */
  gpuCapacity = 0;
  private readonly listeners: PoolListener[] = [];

  constructor(cluster: SchedulerCluster, occupied: readonly OccupiedSlot[]) {
    const sups = [...cluster.supervisors].sort((a, b) => compareIds(a.id, b.id));
    const byId = new Map<string, number>();
    for (let i = 0; i < sups.length; i++) {
      const id = sups[i]!.id;
      if (byId.has(id)) throw new SchedulingError(`supervisor id "${id}" appears twice in the cluster view`);
      byId.set(id, i);
    }
    const taken = new Map<number, Set<number>>();
    const gpuUse = new Map<number, Map<string, number>>();
    const gpuMem = new Map<number, Map<string, number>>();
    for (const o of occupied) {
      const n = byId.get(o.supervisorId);
      // A slot on a supervisor that is gone books nothing: there is nothing left to book.
      if (n === undefined) continue;
      let ports = taken.get(n);
      if (!ports) taken.set(n, (ports = new Set()));
      if (ports.has(o.port)) continue;
      ports.add(o.port);
      if (o.gpuId !== null) {
        let use = gpuUse.get(n);
        if (!use) gpuUse.set(n, (use = new Map()));
        use.set(o.gpuId, (use.get(o.gpuId) ?? 0) + 1);
        const mb = o.resources?.gpuMemoryMB ?? 0;
        if (mb > 0) {
          let mem = gpuMem.get(n);
          if (!mem) gpuMem.set(n, (mem = new Map()));
          mem.set(o.gpuId, (mem.get(o.gpuId) ?? 0) + mb);
        }
      }
    }

    this.nodes = [];
    this.gpus = [];
    for (let i = 0; i < sups.length; i++) {
      const s = sups[i]!;
      const busy = taken.get(i);
      const ports = freePortsOf(s.ports, busy);
      const node: PoolNode = { index: i, id: s.id, host: s.host, ports, head: 0, gpus: [], gpuFree: 0 };
      const gpus = sortedById(s.gpus);
      const use = gpuUse.get(i);
      const mem = gpuMem.get(i);
      for (let j = 0; j < gpus.length; j++) {
        const info = gpus[j]!;
        if (j > 0 && gpus[j - 1]!.id === info.id) {
          throw new SchedulingError(`GPU id "${info.id}" appears twice on supervisor "${s.id}"`);
        }
        const slots = Math.max(0, Math.floor(info.slots));
        const used = use?.get(info.id) ?? 0;
        // perfNorm holds the raw performance until the cluster maximum is known (below).
        const memTotal = Number.isFinite(info.memoryMB) && info.memoryMB > 0 ? info.memoryMB : 0;
        const memUsed = mem?.get(info.id) ?? 0;
        const g: PoolGpu = { node: i, rank: this.gpus.length, info, slots, used, memTotal, memUsed, perfNorm: gpuPerformance(info) };
        node.gpus.push(g);
        this.gpus.push(g);
        node.gpuFree += Math.max(0, slots - used);
      }
      this.nodes.push(node);
      this.freePortCount += ports.length;
      this.gpuCapacity += this.gpuCap(node);
    }
    let maxPerf = 0;
    for (const g of this.gpus) if (g.perfNorm > maxPerf) maxPerf = g.perfNorm;
    for (const g of this.gpus) g.perfNorm = maxPerf > 0 ? g.perfNorm / maxPerf : 0;
  }

  freePorts(node: PoolNode): number {
    return node.ports.length - node.head;
  }

  /** GPU workers this node can still take: each needs a GPU slot and a port. */
  gpuCap(node: PoolNode): number {
    return Math.min(this.freePorts(node), node.gpuFree);
  }

  onChange(fn: PoolListener): void {
    this.listeners.push(fn);
  }

  /** Hands out the node's lowest free port. */
  takePort(node: PoolNode): number {
    const port = node.ports[node.head];
    if (port === undefined) throw new SchedulingError(`internal: no free port left on "${node.id}"`);
    const capBefore = this.gpuCap(node);
    node.head++;
    this.freePortCount--;
    this.gpuCapacity += this.gpuCap(node) - capBefore;
    for (const fn of this.listeners) fn(node);
    return port;
  }

  /** Takes a GPU slot, `memMB` of its memory and a port on its node: what one GPU worker holds. */
  takeGpuSlot(gpu: PoolGpu, memMB = 0): number {
    const node = this.nodes[gpu.node]!;
    if (gpu.used >= gpu.slots) throw new SchedulingError(`internal: GPU "${gpu.info.id}" has no free slot`);
    if (!gpuMemoryFits(gpu, memMB)) throw new SchedulingError(`internal: GPU "${gpu.info.id}" has not ${memMB} MB free`);
    const capBefore = this.gpuCap(node);
    gpu.used++;
    gpu.memUsed += Math.max(0, memMB);
    node.gpuFree--;
    this.gpuCapacity += this.gpuCap(node) - capBefore;
    return this.takePort(node);
  }

  /** The first GPU (by id) on the node with a free slot and `memMB` free memory, or undefined. */
  firstFreeGpu(node: PoolNode, memMB = 0): PoolGpu | undefined {
    return node.gpus.find((g) => g.used < g.slots && gpuMemoryFits(g, memMB));
  }
}

/** Whether `memMB` more fits on the GPU; a GPU of unknown memory takes anything (it is shared by slots only). */
export function gpuMemoryFits(g: Pick<PoolGpu, 'memTotal' | 'memUsed'>, memMB: number): boolean {
  return memMB <= 0 || g.memTotal <= 0 || g.memUsed + memMB <= g.memTotal;
}

/** Free GPU memory of a GPU for reasons: "2048 of 6144 MB free", or "memory unknown". */
export function describeGpuMemory(g: Pick<PoolGpu, 'memTotal' | 'memUsed'>): string {
  return g.memTotal > 0 ? `${Math.max(0, g.memTotal - g.memUsed)} of ${g.memTotal} MB free` : 'memory unknown';
}
