/**
 * The scheduler's input and output: a snapshot of the cluster (supervisors,
 * their ports and GPUs, slots already in use) and the topologies to place, in
 * priority order. Plain data only, so the same shapes serve nimbus, the
 * `hstorm schedule` dry run, the tests and the benchmark.
 */
import type { ExecutorRef, UnassignedExecutor, WorkerAssignment } from '../../common/assignment.js';
import type { GpuInfo } from '../../common/resources.js';

export type SchedulerStrategy = 'even' | 'hetero';

export interface SchedSupervisor {
  id: string;
  host: string;
  /** CPU slots: one worker per port. A GPU worker also takes one of these. */
  ports: number[];
  /** `slots` is P after the slot rules (compute capability, MPS limit) were applied. */
  gpus: GpuInfo[];
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
}

/** A slot held by a topology that is not being (re)scheduled in this call. */
export interface OccupiedSlot {
  supervisorId: string;
  port: number;
  /** The GPU whose slot this worker holds, or null for a CPU worker. */
  gpuId: string | null;
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
}

export interface TopologySchedule {
  workers: WorkerAssignment[];
  /** Executors that got no worker, each with why. Never silently dropped. */
  unassigned: UnassignedExecutor[];
}

export interface ScheduleResult {
  /** topology id → its placement, in the order the topologies were given. */
  assignments: Map<string, TopologySchedule>;
}
