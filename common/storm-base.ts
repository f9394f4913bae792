/**
 * Records stored in the cluster state, besides assignments: the topology
 * itself (StormBase) and worker heartbeats (with the metrics they carry).
 */
import type { ConfigRecord } from './config/config.js';
import type { TopologyDef } from './topology-def.js';
import type { GpuAdapterReport } from './webgpu-adapter.js';

export type TopologyStatus = 'active' | 'inactive' | 'killed' | 'rebalancing';

/** Names a topology may have (they become part of znode names and its id): nimbus refuses others, a Flux file's `name` is checked against it. */
export const TOPOLOGY_NAME = /^[A-Za-z0-9_-]{1,100}$/;

/** Where a worker finds the topology's code. */
export type TopologyCode =
  | { kind: 'path'; path: string } // local mode: the module on this machine
  | { kind: 'bundle'; sha256: string; size: number }; // cluster mode: a blob nimbus serves

export interface StormBase {
  version: 1;
  id: string;
  name: string;
  status: TopologyStatus;
  launchTime: number;
  def: TopologyDef;
  /** Merged topology config (cluster config overridden by topology config). */
  config: ConfigRecord;
  code: TopologyCode;
  /** When killed: how long workers get to drain before they are stopped. */
  killWaitSecs?: number;
  killedAt?: number;
  /** Parallelism set by `rebalance -e` (already in `def`): workers apply it to the topology the module builds before comparing. */
  parallelismOverrides?: Record<string, number>;
  /** `hstorm set-log-level`: the level every worker of the topology logs at, until `until` (epoch ms at nimbus; null: until reset). */
  logLevel?: TopologyLogLevel;
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

export interface TopologyLogLevel {
  level: LogLevelName;
  until: number | null;
}

export interface LatencyStats {
  count: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

/** Storm's tuple counters, as an executor, a component or a worker reports them (Storm UI's columns of the same names). */
export interface TupleCounters {
  emitted: number;
  transferred: number;
  executed: number;
  acked: number;
  failed: number;
}

/** Tuples an executor could not send because the subscriber had no running task (failed at once), per stream and subscriber. */
export interface UnplacedTarget {
  component: string;
  stream: string;
  tuples: number;
  /** The scheduler's reason, as of the last assignment. */
  reason: string;
}

/** Counters are cumulative since the executor started; rates derive from two beats. */
export interface ExecutorMetrics extends TupleCounters {
  component: string;
  task: number;
  /** Tick tuples the task executed (topology.tick.tuple.freq.secs), apart from the data tuples; absent when none. */
  ticks?: number;
  /** Tracked tuples for the task dropped unexecuted because their trees had timed out at their spouts (issue 28); absent when none. */
  staleTuples?: number;
  executeLatencyMs: LatencyStats;
  completeLatencyMs: LatencyStats | null;
  queueDepth: number;
  /** Share of the last report period spent executing (Storm's capacity); GPU bolts: or with a kernel in flight, where larger. */
  capacity: number;
  /** Cumulative busy ms and ms since the executor started: capacity over any span (the local summary's, over the run). */
  busyMs?: number;
  uptimeMs?: number;
  /** GPU bolts: the backend that actually ran, and launch stats. */
  gpu?: GpuMetrics;
  /** Split spouts: γ, δ and latencies. */
  split?: SplitMetrics;
  /** Windowed bolts: windows evaluated, their size, late tuples, the watermark. */
  window?: WindowMetrics;
  /** Stateful bolts and the checkpoint spout: transactions, checkpoint time, state size, recoveries. */
  state?: StateMetrics;
  /** Metrics the component registered itself (Storm metrics v2: counters, gauges, histograms, meters). */
  user?: UserMetricsSnapshot;
  /** The task's latest errors (reportError, a throwing execute or nextTuple), oldest first, at most MAX_REPORTED_ERRORS. */
  errors?: ComponentError[];
  /** Tuples failed at once because a subscriber had no running task; absent when none. */
  unplacedTargets?: UnplacedTarget[];
  /** Sparse histograms (see common/histogram.ts) so percentiles can be merged across tasks. */
  executeHist?: [number, number][];
  executeSum?: number;
  completeHist?: [number, number][] | null;
  completeSum?: number;
}

/** How many of its latest errors a task reports (Storm keeps 10 per component). */
export const MAX_REPORTED_ERRORS = 10;

export interface ComponentError {
  /** Epoch ms at the worker. */
  time: number;
  /** The message and the first lines of the stack. */
  error: string;
}

/**
 * A task's user metrics at one heartbeat. Counters and meter counts are
 * cumulative since the task started; gauges are the value read at the beat;
 * histograms carry their sparse buckets (common/histogram.ts) so nimbus can
 * merge the tasks of a component.
 */
export interface UserMetricsSnapshot {
  counters: Record<string, number>;
  gauges: Record<string, number | null>;
  histograms: Record<string, UserHistogramSnapshot>;
  meters: Record<string, UserMeterSnapshot>;
}

export interface UserHistogramSnapshot extends LatencyStats {
  hist: [number, number][];
  sum: number;
}

export interface UserMeterSnapshot {
  count: number;
  /** Events per second since the meter was registered. */
  meanRate: number;
  /** Exponentially weighted events per second over about the last minute (Dropwizard's m1). */
  m1Rate: number;
}

export interface GpuMetrics {
  /** The gpu.js backend that actually ran the kernel (read from the kernel, not assumed); null before the first launch. */
  backend: string | null;
  /** Every backend that ran a launch, in order (after a GPU failure a task runs on its CPU backend too). */
  backendsRan: string[];
  /** What the worker selected for this task after probing (what will run, barring a fallback at launch). */
  selectedBackend: string;
  requestedBackend: string;
  fallback: boolean;
  fallbackReason: string | null;
  /** Adapter / GPU the kernels ran on; null on a CPU backend. */
  device: string | null;
  /** WebGPU: the adapter (software or a GPU, and which board); null on other backends. */
  adapter: GpuAdapterReport | null;
  /** WebGPU: errors caught in launches and devices lost; null on other backends. */
  deviceStats: GpuDeviceStats | null;
  launches: number;
  /** Failed launches (their tuples failed, to be replayed by their spouts). */
  failedLaunches: number;
  /** Device time per launch (queueing behind the previous launch and the compiling first launch excluded). */
  kernelMs: LatencyStats;
  kernelHist?: [number, number][];
  kernelSum?: number;
  /** Per tuple, from entering the bolt (execute) to its ack: batching wait + queueing behind launches + kernel. */
  inFlightMs: LatencyStats;
  inFlightHist?: [number, number][];
  inFlightSum?: number;
  /** Cumulative ms with at least one launch in flight: the kernel's busy time, which capacity counts. */
  busyMs: number;
  /** Mean share of the padded batch filled with real tuples (0..1). */
  batchFill: number;
  batchSize: number;
  /** Tuples through the kernel, cumulative, and their rate over the last second or so. */
  tuples: number;
  tuplesPerSec: number;
}

/** What a worker learnt about its WebGPU device while kernels ran. */
export interface GpuDeviceStats {
  /** Devices gpu.js created (a lost device is replaced by a new one). */
  devices: number;
  lost: number;
  lastLost: string | null;
  /** Validation, out-of-memory and internal errors caught in launches. */
  errors: number;
  lastError: string | null;
}

/** One windowed bolt task's windows (cumulative counts since the task started). */
export interface WindowMetrics {
  /** The window in words: "sliding 30 s every 5 s, event time (ts), lag 2 s". */
  spec: string;
  eventTime: boolean;
  /** Windows evaluated (execute called), and of those failed (their tuples failed, to be replayed). */
  windows: number;
  failedWindows: number;
  /** Tuples over all windows evaluated (a tuple in three windows counts three times), the last and the largest window. */
  windowTuples: number;
  lastWindowTuples: number;
  maxWindowTuples: number;
  /** Tuples held now: in a window still to come or waiting for the watermark (not acked yet). */
  held: number;
  /** Event time: late tuples (stamped before the watermark) dropped, or emitted on the late stream. */
  lateDropped: number;
  lateRouted: number;
  /** Event time: the watermark (ms), and how far it is behind the newest timestamp seen; null in processing time or before one. */
  watermark: number | null;
  watermarkLagMs: number | null;
  /** Event time: input tasks holding the watermark (sent within the idle timeout), of those known. */
  activeInputs: number | null;
  inputs: number | null;
  /** Cumulative ms spent evaluating windows (capacity counts it). */
  evaluateMs: number;
}

/**
 * One stateful bolt task's state, or the checkpoint spout's view of the topology's transactions (cumulative since the
 * task started).
 */
export interface StateMetrics {
  /** `bolt`: a stateful bolt task; `checkpoint`: the checkpoint spout, which drives the transactions. */
  role: 'bolt' | 'checkpoint';
  provider: 'memory' | 'redis';
  /** The last transaction this task committed (checkpoint spout: the topology committed); null before the first. */
  lastCommittedTxid: number | null;
  /** Transactions committed since the task started. */
  commits: number;
  /**
   * How long a checkpoint took: a bolt's own part (saving its prepare, applying its commit); the checkpoint spout's,
   * from sending PREPARE until every bolt acked the COMMIT.
   */
  checkpointMs: LatencyStats;
  checkpointHist: [number, number][];
  checkpointSum: number;
  /** Keys in the state (bolt); null for the checkpoint spout. */
  keys: number | null;
  /** Bolt: rollbacks and state loads after the first; checkpoint spout: recovery rounds started (the one at start included). */
  recoveries: number;
  /** Checkpoint steps that failed (a store call, a tuple that failed or timed out) and were retried through recovery. */
  failures: number;
  /** Bolt: input tuples acked by the bolt, held until the commit that includes their updates. */
  heldAcks: number;
  /** Bolt: entries of its state that did not decode when it was loaded (left out, reported). */
  corruptEntries: number;
  /** Checkpoint spout: where the transaction stands ("COMMITTED 41", "recovering: ROLLBACK 42"); null for a bolt. */
  phase: string | null;
}

export interface SplitMetrics {
  gamma: number;
  delta: number | null;
  latCpuMs: number | null;
  latGpuMs: number | null;
  policy: 'latency' | 'capacity';
  theta: number;
  sentCpu: number;
  sentGpu: number;
  /** This task computes γ' for its component (task index 0). */
  controller: boolean;
  /** Windows the controller closed (0 on other tasks). */
  windows: number;
  /** The last γ values this task applied, oldest first, with when they were published and applied. */
  applied: AppliedGamma[];
  /** Whether each side has a running task to take its tuples (a side without one gets none); absent in older workers. */
  sides?: { cpu: SplitSide; gpu: SplitSide };
}

/** One side of a split as the spout task sees the assignment. */
export interface SplitSide {
  /** The components subscribed to the side's stream. */
  components: string[];
  /** Their tasks that a worker runs. */
  running: number;
  /** Epoch ms since when the side has had no running task (some subscriber has none); null while it has. */
  downSince: number | null;
  /** The scheduler's reason, while down. */
  reason: string | null;
}

export interface AppliedGamma {
  gamma: number;
  /** Signal sequence number (grows with every publication). */
  seq: number;
  /** Epoch ms at the controller when published, and at this task when applied. */
  publishedAt: number;
  appliedAt: number;
}

export interface WorkerHeartbeat {
  version: 1;
  topologyId: string;
  supervisorId: string;
  host: string;
  port: number;
  pid: number;
  epoch: number;
  time: number;
  uptimeSecs: number;
  rssMB: number;
  /** Frames dropped because they could not be decoded or named an unknown task. */
  droppedFrames: number;
  /** Of droppedFrames: frames fenced as coming from a worker stranded on an older assignment (issue 28). */
  staleFrames?: number;
  /** Tracked tuples the worker dropped unexecuted because their trees had timed out at their spouts (issue 28). */
  staleTuples?: number;
  /** True while the worker's spouts are paused because it has not reached ZooKeeper for nimbus.task.timeout.secs. */
  spoutsPaused?: boolean;
  executors: ExecutorMetrics[];
  /** Topologies with a twoChoice / loadAwareShuffle grouping: the load reports and how stale the figures behind routing were. */
  routingLoad?: RoutingLoadStats;
  /** Per-task backpressure (worker/backpressure/): absent from workers older than it. */
  backpressure?: BackpressureStats;
}

/** A worker's per-task backpressure: its own overloaded tasks, announced to its peers, and theirs, held for. */
export interface BackpressureStats {
  /** This worker's tasks overloaded now (queue full; relieved below half). */
  overloadedTasks: number[];
  /** Times one of its tasks became overloaded. */
  overloadEvents: number;
  /** Status reports sent (to every peer each). */
  statusesSent: number;
  /** Tuples from other workers queued past a full queue (sent before the peers heard), and the most a task held past it. */
  overflowTuples: number;
  overflowMax: number;
  /** Times reading from the network stopped: a task past topology.executor.overflow.limit (0 unless a peer did not hold back). */
  linkPauses: number;
  /** Times reading stopped while a task's queue was full, until it drained or this worker waited for a peer (the usual case). */
  readPauses: number;
  /** Tasks in other workers overloaded now, as their workers said. */
  remoteOverloadedTasks: number[];
  statusesReceived: number;
  /** Malformed statuses, or ones naming tasks their sender does not hold (dropped). */
  statusesDropped: number;
  /** Times an executor was held back because a target task in another worker was overloaded. */
  heldChecks: number;
}

/** A worker's load reports, and how stale the remote figures behind its routing decisions were (worker/routing/load/load-board.ts). */
export interface RoutingLoadStats {
  reportsSent: number;
  reportsReceived: number;
  /** Reports that were not well-formed (dropped). */
  reportsDropped: number;
  /** Sender's clock to arrival, ms. */
  transitMsMean: number;
  transitMsMax: number;
  /** Age of the remote figures behind routing decisions (transit + time since arrival), ms. */
  ageAtUseMsMean: number;
  ageAtUseMsMax: number;
  /** Decisions about a remote task with no figure, or one older than staleMs. */
  staleReads: number;
  /** Decisions that used a fresh remote figure. */
  freshReads: number;
}

