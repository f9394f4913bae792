/**
 * The scheduler's input and output: a snapshot of the cluster (supervisors,
 * their ports, GPUs, cores and memory, slots already in use) and the
 * topologies to place, in priority order. Plain data only, so the same shapes
 * serve nimbus, the `hstorm schedule` dry run, the tests and the benchmarks.
 */
import type { ExecutorRef, QueueEntry, UnassignedExecutor, WorkerAssignment } from '../../common/assignment.js';
import type { GpuInfo, ResourceVector } from '../../common/resources.js';

/** `hdrf` = HDRF ordering and admission between topologies, `hetero` placement within each. */
export type SchedulerStrategy = 'even' | 'hetero' | 'hdrf';
/** How executors of one topology are placed on slots (Algorithms 2–3, or Storm's even). */
export type PlacementStrategy = 'even' | 'hetero';

export interface SchedSupervisor {
  id: string;
  host: string;
  /** CPU slots: one worker per port. A GPU worker also takes one of these. */
  ports: number[];
  /** `slots` is P after the slot rules (compute capability, MPS limit) were applied; `memoryMB` 0 = unknown. */
  gpus: GpuInfo[];
  /** CPU cores the node offers; only HDRF reads it (shares, admission). Absent: not counted. */
  cpuCores?: number;
  /** Memory the node offers, MB; only HDRF reads it. Absent: not counted. */
  memoryMB?: number;
}

export interface SchedulerCluster {
  supervisors: SchedSupervisor[];
}

export interface SchedComponent {
  id: string;
  parallelism: number;
  /** True for a GPU component: its executors need a GPU worker. */
  gpu: boolean;
  /** Upstream component ids (the component graph's edges into this one). */
  inputs: string[];
  /** What ONE executor asks for (GPU memory only for GPU components). Absent: nothing. */
  resources?: ResourceVector;
}

export interface SchedTopology {
  id: string;
  /** Declaration order; breaks ties in the topological order. */
  components: SchedComponent[];
  /** Every task, acker tasks included (component `__acker`), numbered as `computeTasks` does. */
  executors: ExecutorRef[];
  /** W: worker processes asked for (`topology.workers`). */
  numWorkers: number;
  /** How many of the W workers are GPU workers (`topology.gpu.workers`). */
  numGpuWorkers: number;
  /** α of Algorithm 2 (`hstorm.scheduler.alpha`). */
  alpha: number;
  /** β of Algorithm 3 (`hstorm.gpu.beta`). */
  beta: number;
  /** HDRF: when it started waiting (epoch ms, the caller's clock). Absent: it starts waiting now. */
  waitingSince?: number;
}

/**
 * A slot held by a worker. Without fairness, only workers of topologies not
 * being (re)scheduled in this call go here. With fairness, every live worker
 * goes here tagged with its topology: the shares are computed from them, and a
 * topology being rescheduled gets its own slots back only if it is admitted.
 */
export interface OccupiedSlot {
  supervisorId: string;
  port: number;
  /** The GPU whose slot this worker holds, or null for a CPU worker. */
  gpuId: string | null;
  /** The topology that holds it (for HDRF's shares); absent: unknown. */
  topologyId?: string;
  /** What the worker holds (its GPU memory counts against its GPU); absent: nothing. */
  resources?: ResourceVector;
}

export interface FairnessOptions {
  mode: 'hdrf';
  /** OT of HDRF Algorithm 1: a topology waiting longer gets a reservation. */
  reservationTimeoutMs: number;
}

export interface ScheduleInput {
  cluster: SchedulerCluster;
  /** In priority order: earlier topologies get slots first. */
  topologies: SchedTopology[];
  occupied: OccupiedSlot[];
  /**
   * When a GPU component cannot get a GPU worker, run its executors in CPU
   * workers (their kernels use a CPU backend) instead of reporting them unassigned.
   */
  gpuFallbackToCpu?: boolean;
  /** Order and admit topologies by HDRF (needs `now`); absent or null: priority order, partial placement. */
  fairness?: FairnessOptions | null;
  /** The caller's clock (epoch ms): the scheduler reads no clock of its own. Needed by fairness. */
  now?: number;
}

export interface TopologySchedule {
  workers: WorkerAssignment[];
  /** Executors that got no worker, each with why. Never silently dropped. */
  unassigned: UnassignedExecutor[];
  /** With fairness: set when the topology waits (then `workers` is empty and every executor is in `unassigned`). */
  queue?: QueueEntry | null;
}

export interface ScheduleResult {
  /** topology id → its placement, in the order the topologies were given. */
  assignments: Map<string, TopologySchedule>;
}
