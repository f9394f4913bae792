/**
 * What a running component knows about itself and its topology, and the
 * logger and signal facility the runtime hands it.
 */

/** The subset of a pino logger a component uses (kept structural so the SDK does not load pino). */
export interface ComponentLogger {
  trace(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** A signal value as delivered: the payload and a sequence number that only grows. */
export interface Signal<T = unknown> {
  name: string;
  value: T;
  seq: number;
  from: { component: string; task: number };
  time: number;
}

export interface TopologyContext {
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
  /** Port of the worker process this task runs in. */
  readonly workerPort: number;
  /** The GPU this worker is bound to, or null on a CPU slot. */
  readonly gpu: { gpuId: string; name: string; source: string } | null;
  readonly log: ComponentLogger;
  /**
   * Publishes a signal to every task of `component` that registered a handler
   * for `name` (through a ZooKeeper watch, or the in-memory store's in local mode).
   */
  sendSignal(component: string, name: string, value: unknown): Promise<void>;
  /** Registers the handler for signals named `name` sent to this component. */
  onSignal<T = unknown>(name: string, handler: (signal: Signal<T>) => void): void;
}
