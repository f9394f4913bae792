/**
 * What a running component knows about itself and its topology, and the
 * logger and signal facility the runtime hands it.
 */
import type { GpuMetrics, SplitMetrics, StateMetrics, WindowMetrics } from '../common/storm-base.js';
import type { StateStore } from '../common/state-store/state-store.js';
import type { TopologyDef } from '../common/topology-def.js';
import type { GpuBackendHandle } from './gpu-backend-handle.js';
import type { Counter, Gauge, Meter, UserHistogram } from './user-metrics.js';
import type { StormContextGetters } from './internal/storm-context.js';

/** The subset of a pino logger a component uses (kept structural so the SDK does not load pino). */
export interface ComponentLogger {
  trace(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** Sections a component may add to its task's heartbeat metrics. */
export interface ComponentMetricSections {
  gpu: GpuMetrics;
  split: SplitMetrics;
  window: WindowMetrics;
  state: StateMetrics;
}

/** Called for every tracked spout message that completes: its stream, complete latency and fate. */
export type TupleCompleteListener = (stream: string, latencyMs: number, acked: boolean) => void;

/** How loaded a component is, from its executors' latest heartbeats. */
export interface ComponentLoad {
  /** Executors of the component that reported a service time. */
  executors: number;
  /** Mean time one executor spends per tuple (GPU bolts: kernel time per tuple); null before any report. */
  meanServiceMs: number | null;
}

/** Where a component's tasks run now, as this worker's current assignment says. */
export interface ComponentPlacement {
  /** Tasks a worker runs. */
  running: readonly number[];
  /** Tasks no worker runs: the scheduler left them unassigned (no slot, no GPU, an HDRF wait). */
  unplaced: readonly number[];
  /** The scheduler's reason for the unplaced tasks; null when every task is placed. */
  reason: string | null;
}

/** A signal value as delivered: the payload and a sequence number that only grows. */
export interface Signal<T = unknown> {
  name: string;
  value: T;
  seq: number;
  from: { component: string; task: number };
  time: number;
}

/**
 * What a task is handed in open/prepare. Storm's getters (getThisTaskId, getComponentTasks, getThisSources, …) are
 * there under Storm's names, beside hstorm's properties (taskId, componentTasks, …) that say the same.
 */
export interface TopologyContext extends StormContextGetters {
  readonly topologyId: string;
  readonly topologyName: string;
  readonly componentId: string;
  readonly taskId: number;
  /** Index of this task among its component's tasks (0-based). */
  readonly taskIndex: number;
  /** All task ids of this component, sorted. */
  readonly componentTasks: readonly number[];
  /** Task ids of any component. */
  tasksOf(componentId: string): readonly number[];
  /**
   * Which tasks of a component run now. A tuple towards a component with no running task cannot be processed: the
   * runtime fails it at once (`Spout.fail` with reason `unplaced`), and a StreamSplit sends nothing to such a side.
   */
  placementOf(componentId: string): ComponentPlacement;
  /** `listener` is called after this worker applies a new assignment (placements may have changed); returns its removal. */
  onPlacementChange(listener: () => void): () => void;
  /** The topology as submitted: components, their streams and groupings (what a multilang handshake describes). */
  readonly topologyDef: TopologyDef;
  /**
   * Directory of the topology module this worker loaded (Storm's getCodeDir):
   * the source directory in local mode, the unpacked bundle's in cluster mode.
   */
  readonly codeDir: string;
  /** Port of the worker process this task runs in. */
  readonly workerPort: number;
  /** The GPU this worker is bound to, or null on a CPU slot. */
  readonly gpu: { gpuId: string; name: string; source: string; pciBusId?: string | null } | null;
  readonly log: ComponentLogger;
  /**
   * Publishes a signal to every task of `component` that registered a handler
   * for `name` (through a ZooKeeper watch, or the in-memory store's in local mode).
   */
  sendSignal(component: string, name: string, value: unknown): Promise<void>;
  /** Registers the handler for signals named `name` sent to this component. */
  onSignal<T = unknown>(name: string, handler: (signal: Signal<T>) => void): void;
  /**
   * Spouts only: `listener` hears of every tracked message that completes
   * (acked, failed or timed out), with its stream and complete latency.
   */
  onTupleComplete(listener: TupleCompleteListener): void;
  /**
   * For components whose work runs off the executor's thread (GPU kernels):
   * `supplier` returns the cumulative ms this task was busy there, and the
   * task's capacity counts it (the larger of that share and execute's).
   */
  reportBusyTime(supplier: () => number): void;
  /**
   * The topology's state store (`topology.state.provider`), opened by the worker on first use: where stateful bolts
   * and the checkpoint spout keep their state. Authors use StatefulBolt rather than this.
   */
  readonly stateStore: StateStore;
  /** Adds a section (`gpu`, `split`, `window`, `state`) to this task's heartbeat metrics; `supplier` is called at each heartbeat. */
  reportMetrics<K extends keyof ComponentMetricSections>(section: K, supplier: () => ComponentMetricSections[K]): void;
  /** Load of any component of the topology, from the latest worker heartbeats in the cluster state. */
  componentLoad(component: string): Promise<ComponentLoad>;
  /**
   * GPU bolts: the gpu.js backend of this worker process, probed once
   * (WebGPU on the bound GPU, then headless-gl, else the best CPU backend,
   * with the fallback and its reason reported).
   */
  acquireGpuBackend(): Promise<GpuBackendHandle>;
  /**
   * Storm metrics v2: a counter of this task, reported with every heartbeat
   * and summed per component by nimbus. The same name again returns the same
   * counter; a name already used by another kind throws (HSTORM_ERR_SDK_METRIC).
   */
  registerCounter(name: string): Counter;
  /** A gauge read at every heartbeat (an object with getValue(), or a function); numbers only, anything else reads null. */
  registerGauge<T>(name: string, gauge: Gauge<T> | (() => T)): Gauge<T>;
  /** A histogram of values (update(v)); percentiles are merged across the component's tasks. */
  registerHistogram(name: string): UserHistogram;
  /** A meter of events (mark(n)): its count, mean rate and one-minute rate. */
  registerMeter(name: string): Meter;
}
