/**
 * Resource descriptions a supervisor reports and the scheduler consumes.
 */
export type GpuSource = 'nvidia-smi' | 'webgpu' | 'declared';

export interface GpuInfo {
  /** Stable id: the uuid from nvidia-smi, the adapter name for webgpu, the configured id when declared. */
  id: string;
  name: string;
  smCount: number;
  coresPerSm: number;
  clockMHz: number;
  /** Total GPU memory; 0 = unknown (the GPU is then shared by slots only). */
  memoryMB: number;
  /** "major.minor", e.g. "6.1". */
  computeCapability: string;
  /** P: how many GPU workers may share this GPU at once. */
  slots: number;
  source: GpuSource;
  /** Position of the device for backends that select by index (nvidia-smi order). */
  index?: number;
  pciBusId?: string;
}

/**
 * An amount of the three resources HDRF shares (DESIGN §5.3): CPU cores,
 * memory and GPU memory. What one executor asks for, what a worker holds (the
 * sum over its executors) and what a topology holds (the sum over its workers).
 */
export interface ResourceVector {
  cpu: number;
  memoryMB: number;
  gpuMemoryMB: number;
}

/** A supervisor's report, stored in its ephemeral znode. */
export interface SupervisorInfo {
  id: string;
  host: string;
  ports: number[];
  /** Memory this node offers (`supervisor.memory.mb`, default: the machine's total). */
  memoryMB: number;
  /** CPU cores this node offers (`supervisor.cpu.cores`, default: the machine's cores). */
  cpus: number;
  gpus: GpuInfo[];
  /** GPU slots in use per GPU id (in a dump for `hstorm schedule`; supervisors do not write it). */
  usedGpuSlots?: Record<string, number>;
  startedAt: number;
  heartbeatAt: number;
  version: 1;
}

/** Formula 8 of H-Storm: smCount × coresPerSm × clockMHz. */
export function gpuPerformance(g: Pick<GpuInfo, 'smCount' | 'coresPerSm' | 'clockMHz'>): number {
  return g.smCount * g.coresPerSm * g.clockMHz;
}
