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
  /** The node collector's latest round (seed 003); absent until the first one, or when collection is off. */
  node?: NodeStats;
  /** Workers here that died since they were assigned, with why: how nimbus tells a crash-looping worker (absent when none died). */
  workerExits?: WorkerExitReport[];
  /** Where its worker log server answers (`hstorm logs`); absent when it runs none (supervisor.logviewer.port null). */
  logServer?: { host: string; port: number };
  version: 1;
}

/**
 * A supervisor's account of one slot's worker deaths. A worker that dies
 * soon after starting, CRASH_LOOP_DEATHS times in a row, is crash-looping:
 * the supervisor keeps restarting it (with backoff), and describe says so
 * with the last error from its log.
 */
export interface WorkerExitReport {
  topologyId: string;
  port: number;
  /** Deaths since the slot was assigned this topology. */
  deaths: number;
  /** Consecutive deaths within seconds of starting. */
  fastDeaths: number;
  crashLooping: boolean;
  lastExit: { code: number | null; signal: string | null; time: number };
  /** The newest error in the worker's log before it died (message and first frames), if it wrote one. */
  lastError: string | null;
}

/** Consecutive fast deaths after which a worker counts as crash-looping. */
export const CRASH_LOOP_DEATHS = 3;

/**
 * One round of a supervisor's node collector: what the node itself uses, as
 * opposed to the slots the scheduler hands out. Every figure the node cannot
 * give is null, with the reason in `notes` or the GPU's `why`.
 */
export interface NodeStats {
  /** Epoch ms of the round (the supervisor's clock). */
  time: number;
  /** Wall time the round took: the collector's own cost. */
  collectMs: number;
  cpu: {
    cores: number;
    /** Busy share of all cores since the previous round, 0..1; null on the first round. */
    utilisation: number | null;
    load1: number;
  };
  memory: { totalMB: number; usedMB: number; availableMB: number };
  gpus: NodeGpuStats[];
  workers: NodeWorkerStats[];
  notes: string[];
}

export interface NodeGpuStats {
  /** GpuInfo.id: the uuid for nvidia-smi GPUs. */
  id: string;
  source: GpuSource;
  /** Busy share of the last sample period, 0..1 (nvidia-smi utilization.gpu). */
  utilisation: number | null;
  memoryUsedMB: number | null;
  memoryTotalMB: number | null;
  /** Why a figure is null (a WebGPU adapter or a declared GPU reports none; the driver says [N/A]). */
  why: string | null;
}

export interface NodeWorkerStats {
  port: number;
  topologyId: string;
  pid: number;
  rssMB: number | null;
  /** CPU time per wall time since the previous round: 1 = one core busy. */
  cpu: number | null;
}

/** Formula 8 of H-Storm: smCount × coresPerSm × clockMHz. */
export function gpuPerformance(g: Pick<GpuInfo, 'smCount' | 'coresPerSm' | 'clockMHz'>): number {
  return g.smCount * g.coresPerSm * g.clockMHz;
}
