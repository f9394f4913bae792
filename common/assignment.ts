/**
 * What nimbus writes for each topology and workers/supervisors read: which
 * worker slot runs which executors, and why.
 */
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
}

export interface UnassignedExecutor extends ExecutorRef {
  reason: string;
}

export interface Assignment {
  topologyId: string;
  /** Bumped on every reassignment so workers can tell a new one from the old. */
  epoch: number;
  workers: WorkerAssignment[];
  unassigned: UnassignedExecutor[];
  scheduler: 'even' | 'hetero';
  createdAt: number;
}

export function workerKey(w: { supervisorId: string; port: number }): string {
  return `${w.supervisorId}:${w.port}`;
}
