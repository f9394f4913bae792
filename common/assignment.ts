/**
 * What nimbus writes for each topology and workers/supervisors read: which
 * worker slot runs which executors, and why — and, for a topology waiting in
 * the HDRF queue, why it waits.
 */
import type { ResourceVector } from './resources.js';

export interface ExecutorRef {
  component: string;
  task: number;
}

/** The GPU a GPU worker is bound to. */
export interface GpuBinding {
  gpuId: string;
  name: string;
  /** Device index for backends that select by position. */
  index: number | null;
  /** PCI bus id (nvidia-smi), the board's stable identity beside its uuid; absent for other sources. */
  pciBusId?: string;
  source: 'nvidia-smi' | 'webgpu' | 'declared';
}

export interface WorkerAssignment {
  supervisorId: string;
  host: string;
  port: number;
  gpu: GpuBinding | null;
  executors: ExecutorRef[];
  /** Why these executors are here (N, α; the GPU scores). */
  reason: string;
  /** What the worker holds: the sum of its executors' requests (absent in records written before resources were tracked). */
  resources?: ResourceVector;
}

export interface UnassignedExecutor extends ExecutorRef {
  reason: string;
}

/** The topology that keeps a waiting one waiting, and how. */
export interface QueueBlocker {
  topology: string;
  /** `share`: it had the smaller dominant share and took what was free; `reservation`: free resources are held for it. */
  why: 'share' | 'reservation';
  dominantShare: number;
}

/**
 * A topology waiting in the HDRF queue (nimbus.scheduler.fairness=hdrf): it
 * holds no resources it has not started with, and this says why it waits.
 * Times are epoch ms on nimbus's clock; the text is time-free so that an
 * unchanged queue does not rewrite the assignment every round — views add the
 * live durations (`describeQueue`).
 */
export interface QueueEntry {
  /** `reserved`: it waited longer than OT, and resources freed from then on are held for it. */
  state: 'waiting' | 'reserved';
  /** When it started waiting (its submission, or when it lost workers it could not get back). */
  since: number;
  /** since + OT once it has the reservation, else null. */
  reservedSince: number | null;
  /** Dominant share of what it holds now (0 for a topology that has not started). */
  dominantShare: number;
  /** Its whole request, e.g. "3 workers (2 GPU × 4096 MB), 0.6 cores, 768 MB". */
  needs: string;
  blockedBy: QueueBlocker | null;
  /** Why it does not fit now, e.g. "free: 1 port, 0 GPU slots with 4096 MB". */
  detail: string;
}

export interface Assignment {
  topologyId: string;
  /** Bumped on every reassignment so workers can tell a new one from the old. */
  epoch: number;
  workers: WorkerAssignment[];
  unassigned: UnassignedExecutor[];
  scheduler: 'even' | 'hetero' | 'hdrf';
  createdAt: number;
  /** Set while the topology waits in the HDRF queue; absent or null otherwise. */
  queue?: QueueEntry | null;
}

export function workerKey(w: { supervisorId: string; port: number }): string {
  return `${w.supervisorId}:${w.port}`;
}
