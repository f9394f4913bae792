/**
 * The read-only views nimbus serves (HTTP API, `hstorm list/describe`,
 * LocalCluster): plain JSON-able shapes, stable for scripts using `--json`.
 */
import type { GpuBinding, QueueBlocker, UnassignedExecutor } from '../common/assignment.js';
import type { GpuSource, ResourceVector, WorkerExitReport } from '../common/resources.js';
import type { ComponentGpuSummary } from '../common/metrics-rollup.js';
import type { ComponentStateStats } from '../common/state-rollup.js';
import type { ComponentUserMetrics } from '../common/user-metrics-fold.js';
import type { SchedulerStrategy } from './scheduler/types.js';
import type { BackpressureStats, TopologyCode, TopologyStatus, TupleCounters, UnplacedTarget } from '../common/storm-base.js';
import type { CorruptNode } from './cluster-reader.js';
import type { WorkerLiveness } from './heartbeat-tracker.js';
import type { SplitPoint } from './split-history.js';

export interface ClusterSummary {
  nimbus: { host: string | null; port: number | null; startedAt: number; uptimeSecs: number };
  scheduler: SchedulerStrategy;
  /** Order between topologies: HDRF or submission order. */
  fairness: 'hdrf' | 'none';
  /** OT of HDRF in seconds; null without fairness. */
  reservationTimeoutSecs: number | null;
  /** Cores, memory and GPU memory the supervisors offer, and what the workers hold. */
  resources: { total: ResourceVector; held: ResourceVector };
  /** Topologies waiting in the HDRF queue. */
  queued: number;
  supervisors: number;
  slotsTotal: number;
  slotsUsed: number;
  gpus: number;
  gpuSlotsTotal: number;
  gpuSlotsUsed: number;
  topologies: number;
  /** Znodes nimbus skipped because they do not parse (and how often). */
  corruptZnodes: CorruptNode[];
  corruptReads: number;
}

export interface GpuSummary {
  id: string;
  name: string;
  source: GpuSource;
  /** Declared in config: no real device behind it (kernels run on a CPU backend). */
  declared: boolean;
  slots: number;
  usedSlots: number;
  /** GPU memory the workers on it declared (MB). */
  usedMemoryMB: number;
  /** H-Storm formula 8: smCount × coresPerSm × clockMHz. */
  performance: number;
  smCount: number;
  coresPerSm: number;
  clockMHz: number;
  memoryMB: number;
  computeCapability: string;
}

export interface SupervisorSummary {
  id: string;
  host: string;
  ports: number[];
  usedPorts: number[];
  slotsTotal: number;
  slotsUsed: number;
  memoryMB: number;
  cpus: number;
  uptimeSecs: number;
  gpus: GpuSummary[];
  /** Its worker log server (`hstorm logs`); absent when it advertises none. */
  logServer?: { host: string; port: number };
}

/** A topology waiting in the HDRF queue, at the time of the view. */
export interface QueueView {
  state: 'waiting' | 'reserved';
  waitSecs: number;
  /** How long it has held its reservation; null without one. */
  reservedSecs: number | null;
  dominantShare: number;
  /** Its whole request, e.g. "3 workers (2 GPU × 4096 MB), 0.6 cores, 768 MB". */
  needs: string;
  blockedBy: QueueBlocker | null;
  /** e.g. "waiting 8 s: dominant share 0.42 > topology b's 0.10, which went first; needs …; short of …". */
  reason: string;
}

/** What a topology holds and its dominant share of the cluster (HDRF's s_i). */
export interface TopologyResources {
  holds: ResourceVector;
  dominantShare: number;
  dominantResource: 'cpu' | 'memory' | 'gpu memory' | null;
  shares: { cpu: number; memory: number; gpuMemory: number };
}

export interface TopologySummary {
  id: string;
  name: string;
  status: TopologyStatus;
  uptimeSecs: number;
  workersRequested: number;
  workers: number;
  /** How many of the workers asked for are GPU workers (`topology.gpu.workers`), and how many of those are placed. */
  gpuWorkersRequested: number;
  gpuWorkers: number;
  executors: number;
  unassigned: number;
  epoch: number | null;
  scheduler: SchedulerStrategy | null;
  dominantShare: number;
  /** Set while it waits in the HDRF queue. */
  queue: QueueView | null;
  /** Workers that keep dying soon after they start. */
  crashLoopingWorkers: number;
}

/** `GET /api/v1/scheduler/queue`: the waiting topologies in the order HDRF considers them. */
export interface QueueListing {
  fairness: 'hdrf' | 'none';
  reservationTimeoutSecs: number | null;
  queue: ({ id: string; name: string } & QueueView)[];
}

export interface ComponentStats extends TupleCounters {
  kind: 'spout' | 'bolt' | 'acker';
  gpu: boolean;
  executors: number;
  /** Tick tuples executed (topology.tick.tuple.freq.secs), counted apart from the data tuples. */
  ticks: number;
  /** Tracked tuples dropped unexecuted because their trees had timed out at their spouts (issue 28). */
  staleTuples: number;
  /** Mean execute latency over all executors, weighted by count. */
  executeLatencyMs: number | null;
  /** Spouts: mean complete latency, weighted by count. */
  completeLatencyMs: number | null;
  completeLatencyP50Ms: number | null;
  /** Highest p99 of the component's executors (a bound, not an exact merged percentile). */
  completeLatencyP99Ms: number | null;
  /** Highest capacity of the component's executors, as Storm's UI shows it. */
  capacity: number;
  /** GPU components: backends the executors report actually running on. */
  backends: string[];
  /** GPU components: some executor runs its kernel on a CPU backend although it asked for a GPU one. */
  fallback: boolean;
  fallbackReasons: string[];
  /** GPU components: what ran (adapter, software or GPU), kernel time per launch, time in flight per tuple, device trouble. */
  gpuKernels: ComponentGpuSummary | null;
  /**
   * Split spouts: the SplitMetrics (γ, δ, latCpuMs, latGpuMs, windows, applied…)
   * of the controller task, or of the first task reporting them before the
   * controller has.
   */
  split: Record<string, unknown> | null;
  /** Windowed bolts: their window, and windows evaluated, size, late tuples and watermark lag summed over tasks. */
  window: ComponentWindowStats | null;
  /** Stateful bolts and the checkpoint spout: transactions, checkpoint time, state size, recoveries (common/state-rollup.ts). */
  state: ComponentStateStats | null;
  /** Storm's "last error": the newest error a task of the component reported (reportError, a throwing execute or nextTuple). */
  lastError: ComponentLastError | null;
  /** Tuples this component emitted towards a component with no running task, failed at once, per stream and target (summed over tasks). */
  unplacedTargets: UnplacedTarget[];
  /** The user metrics its tasks registered (counters, gauges, histograms, meters), folded; null when none. */
  userMetrics?: ComponentUserMetrics | null;
}

export type { ComponentStateStats } from '../common/state-rollup.js';

/** A windowed bolt's windows over all its tasks (from their heartbeats' `window` sections). */
export interface ComponentWindowStats {
  /** The window in words ("sliding 30 s every 5 s, event time (ts), lag 2 s"). */
  spec: string;
  eventTime: boolean;
  /** Windows evaluated, and of those failed (their tuples failed and replayed). */
  windows: number;
  failedWindows: number;
  /** Mean tuples per window evaluated (null before the first), and the largest window. */
  meanWindowTuples: number | null;
  maxWindowTuples: number;
  /** Tuples held now, not acked yet: in a window still to come, or waiting for the watermark. */
  held: number;
  /** Event time: late tuples dropped and counted, or routed to the late stream. */
  lateDropped: number;
  lateRouted: number;
  /** Event time: how far the watermark is behind the newest timestamp, for the task furthest behind (ms). */
  watermarkLagMs: number | null;
}

export interface ComponentLastError {
  /** The message and the first stack frames. */
  error: string;
  /** Epoch ms at the worker. */
  time: number;
  host: string;
  port: number;
  task: number;
}

export interface WorkerMetrics {
  pid: number;
  /** Per-task backpressure (worker/backpressure/); null from a worker that does not report it. */
  backpressure: BackpressureStats | null;
  uptimeSecs: number;
  rssMB: number;
  droppedFrames: number;
  /** Of droppedFrames: fenced, from a worker stranded on an older assignment (issue 28). */
  staleFrames: number;
  /** Tracked tuples dropped unexecuted because their trees had timed out at their spouts (issue 28). */
  staleTuples: number;
  /** The worker has not reached ZooKeeper for nimbus.task.timeout.secs: its spouts emit nothing until it does (issue 28). */
  spoutsPaused: boolean;
  heartbeatTime: number;
  epoch: number;
  emitted: number;
  transferred: number;
  acked: number;
  failed: number;
}

export interface WorkerDetail {
  supervisor: string;
  host: string;
  port: number;
  gpu: GpuBinding | null;
  executors: { component: string; tasks: number[] }[];
  reason: string;
  /** What the worker holds (cores, memory, GPU memory). */
  resources: ResourceVector | null;
  liveness: WorkerLiveness;
  metrics: WorkerMetrics | null;
  /** The supervisor's account of this worker's deaths (absent: it never died here); `crashLooping` when it keeps dying soon after start. */
  exits: WorkerExitReport | null;
}

export interface TopologyDetail {
  id: string;
  name: string;
  status: TopologyStatus;
  launchTime: number;
  uptimeSecs: number;
  epoch: number | null;
  scheduler: SchedulerStrategy | null;
  workersRequested: number;
  /** `topology.gpu.workers`: how many of the workers asked for are GPU workers (placed ones: `workers` with a `gpu`). */
  gpuWorkersRequested: number;
  code: TopologyCode;
  /** What it holds and its dominant share. */
  resources: TopologyResources;
  /** Set while it waits in the HDRF queue. */
  queue: QueueView | null;
  killWaitSecs: number | null;
  workers: WorkerDetail[];
  components: Record<string, ComponentStats>;
  unassigned: UnassignedExecutor[];
  config: Record<string, unknown>;
  /** Some worker keeps dying soon after it starts (see workers[].exits for its last error). */
  crashLooping: boolean;
}

/** `GET /topologies/:name/timeseries`: the split spouts' γ, δ and latencies, oldest first, one point per task and heartbeat. */
export interface TopologyTimeseries {
  id: string;
  name: string;
  points: SplitPoint[];
}
