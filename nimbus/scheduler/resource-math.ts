/**
 * Arithmetic on resource vectors (CPU cores, memory, GPU memory) and HDRF's
 * dominant share (seed 000, §2.3): a topology's share of each resource is what
 * it holds over what the cluster has, and its dominant share is the largest of
 * the three. A resource the cluster does not report (total 0) counts as no
 * share, so a cluster without GPU memory figures is shared by CPU and memory.
 * Used by the scheduler, and by nimbus's views so both show the same numbers.
 */
import type { ResourceVector } from '../../common/resources.js';

export const ZERO: Readonly<ResourceVector> = Object.freeze({ cpu: 0, memoryMB: 0, gpuMemoryMB: 0 });

export function vec(cpu = 0, memoryMB = 0, gpuMemoryMB = 0): ResourceVector {
  return { cpu, memoryMB, gpuMemoryMB };
}

/** a += b × times. */
export function addInto(a: ResourceVector, b: Readonly<ResourceVector> | undefined, times = 1): ResourceVector {
  if (!b) return a;
  a.cpu += b.cpu * times;
  a.memoryMB += b.memoryMB * times;
  a.gpuMemoryMB += b.gpuMemoryMB * times;
  return a;
}

export function sub(a: Readonly<ResourceVector>, b: Readonly<ResourceVector>): ResourceVector {
  return { cpu: a.cpu - b.cpu, memoryMB: a.memoryMB - b.memoryMB, gpuMemoryMB: a.gpuMemoryMB - b.gpuMemoryMB };
}

/** What a node offers, in the shape both SchedSupervisor and SupervisorInfo-derived views have. */
export interface NodeCapacity {
  cpuCores?: number;
  memoryMB?: number;
  gpus: readonly { memoryMB: number }[];
}

/** A of HDRF Algorithm 1: cores, memory and GPU memory of the whole cluster (unknown figures count 0). */
export function clusterTotals(nodes: Iterable<NodeCapacity>): ResourceVector {
  const t = vec();
  for (const n of nodes) {
    t.cpu += positive(n.cpuCores);
    t.memoryMB += positive(n.memoryMB);
    for (const g of n.gpus) t.gpuMemoryMB += positive(g.memoryMB);
  }
  return t;
}

function positive(x: number | undefined): number {
  return x !== undefined && Number.isFinite(x) && x > 0 ? x : 0;
}

export type ShareDim = 'cpu' | 'memory' | 'gpu memory';

export interface DominantShare {
  share: number;
  /** Which resource it is (the first of cpu, memory, gpu memory on a tie); null when the share is 0. */
  dim: ShareDim | null;
  /** The three shares, for reasons. */
  shares: Record<ShareDim, number>;
}

/** s = max(cpu / A_cpu, mem / A_mem, gpu / A_gpu), each term 0 where the cluster total is 0. */
export function dominantShare(use: Readonly<ResourceVector>, totals: Readonly<ResourceVector>): DominantShare {
  const shares: Record<ShareDim, number> = {
    cpu: totals.cpu > 0 ? use.cpu / totals.cpu : 0,
    memory: totals.memoryMB > 0 ? use.memoryMB / totals.memoryMB : 0,
    'gpu memory': totals.gpuMemoryMB > 0 ? use.gpuMemoryMB / totals.gpuMemoryMB : 0,
  };
  let share = 0;
  let dim: ShareDim | null = null;
  for (const d of ['cpu', 'memory', 'gpu memory'] as const) {
    if (shares[d] > share) {
      share = shares[d];
      dim = d;
    }
  }
  return { share, dim, shares };
}

/** Two decimals, as shares are shown everywhere ("0.42"). */
export function fmtShare(x: number): string {
  return x.toFixed(2);
}

/** "0.6 cores, 768 MB, 4096 MB GPU memory" (zero terms left out; "nothing" when all are 0). */
export function describeVector(v: Readonly<ResourceVector>): string {
  const parts: string[] = [];
  if (v.cpu > 0) parts.push(`${round(v.cpu, 2)} cores`);
  if (v.memoryMB > 0) parts.push(`${round(v.memoryMB, 0)} MB`);
  if (v.gpuMemoryMB > 0) parts.push(`${round(v.gpuMemoryMB, 0)} MB GPU memory`);
  return parts.length ? parts.join(', ') : 'nothing';
}

function round(x: number, digits: number): string {
  return String(Number(x.toFixed(digits)));
}
