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

/** A supervisor's report, stored in its ephemeral znode. */
export interface SupervisorInfo {
  id: string;
  host: string;
  ports: number[];
  memoryMB: number;
  cpus: number;
  gpus: GpuInfo[];
  /** GPU slots in use per GPU id (filled in from assignments by nimbus when shown). */
  usedGpuSlots?: Record<string, number>;
  startedAt: number;
  heartbeatAt: number;
  version: 1;
}

/** Formula 8 of H-Storm: smCount × coresPerSm × clockMHz. */
export function gpuPerformance(g: Pick<GpuInfo, 'smCount' | 'coresPerSm' | 'clockMHz'>): number {
  return g.smCount * g.coresPerSm * g.clockMHz;
}
