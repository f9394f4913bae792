/**
 * A TopologyContext without a worker, for unit tests of SDK pieces (the split,
 * GPU bolts): signals go through an in-process bus with the SignalHub's
 * semantics (every handler of the target component, asynchronously, with a
 * growing seq), completions and metric sections are recorded for the test.
 */
import type { ComponentLoad, ComponentMetricSections, ComponentPlacement, Signal, TopologyContext, TupleCompleteListener } from '../../topology-sdk/context.js';
import type { TopologyDef } from '../../common/topology-def.js';
import type { GpuBackendHandle } from '../../topology-sdk/gpu-backend-handle.js';
import { MetricRegistry } from '../../topology-sdk/user-metrics.js';
import { MemoryStateStore, type StateStore } from '../../common/state-store/index.js';
import { stormContextGetters } from '../../topology-sdk/internal/storm-context.js';

export class FakeSignalBus {
  private readonly handlers = new Map<string, ((s: Signal) => void)[]>();
  private readonly seqs = new Map<string, number>();
  readonly sent: Signal[] = [];

  /** `now` stamps each signal's time (a test with a manual clock passes it). */
  constructor(private readonly now: () => number = Date.now) {}

  send(component: string, name: string, value: unknown, from: { component: string; task: number }): Promise<void> {
    const key = `${component}\u0000${name}`;
    const seq = (this.seqs.get(key) ?? -1) + 1;
    this.seqs.set(key, seq);
    // JSON round trip, as through the store: handlers never share the sender's object.
    const signal: Signal = { name, value: JSON.parse(JSON.stringify(value)) as unknown, seq, from, time: this.now() };
    if (name.endsWith('gamma')) this.sent.push(signal);
    setImmediate(() => {
      for (const h of this.handlers.get(key) ?? []) h(signal);
    });
    return Promise.resolve();
  }

  on(component: string, name: string, handler: (s: Signal) => void): void {
    const key = `${component}\u0000${name}`;
    const list = this.handlers.get(key) ?? [];
    list.push(handler);
    this.handlers.set(key, list);
  }
}

export interface FakeContextOptions {
  component?: string;
  taskId?: number;
  tasks?: number[];
  bus?: FakeSignalBus;
  gpuBackend?: () => Promise<GpuBackendHandle>;
  componentLoad?: (component: string) => ComponentLoad;
  /** The topology the context describes (default: none). */
  def?: TopologyDef;
  /** Where a component's tasks run (default: every task of `tasks` for this component, none for others, all placed). */
  placement?: (component: string) => ComponentPlacement;
  /** The state store (default: a memory store of its own). */
  stateStore?: StateStore;
  /** Task ids of other components (default: none). */
  tasksOf?: (component: string) => readonly number[];
}

export interface FakeContext extends TopologyContext {
  completeListeners: TupleCompleteListener[];
  busyTime: (() => number) | null;
  sections: Map<string, () => unknown>;
  logged: { level: string; obj: unknown; msg?: string | undefined }[];
  metrics: MetricRegistry;
  /** Runs the onPlacementChange listeners, as the worker does after applying an assignment. */
  firePlacementChange(): void;
}

export function fakeContext(opts: FakeContextOptions = {}): FakeContext {
  const component = opts.component ?? 'spout';
  const tasks = opts.tasks ?? [opts.taskId ?? 1];
  const taskId = opts.taskId ?? tasks[0]!;
  const bus = opts.bus ?? new FakeSignalBus();
  const logged: FakeContext['logged'] = [];
  const placementListeners = new Set<() => void>();
  const metrics = new MetricRegistry();
  const rec = (level: string) => (obj: object | string, msg?: string) => {
    logged.push({ level, obj, msg });
  };
  const def = opts.def ?? { components: [], config: {} };
  const tasksOf = (c: string): readonly number[] => (c === component ? tasks : (opts.tasksOf?.(c) ?? []));
  const ctx: FakeContext = {
    ...stormContextGetters({ def, topologyId: 'test-1', componentId: component, taskId, workerPort: 6700, tasksOf }),
    topologyId: 'test-1',
    topologyName: 'test',
    componentId: component,
    taskId,
    taskIndex: tasks.indexOf(taskId),
    componentTasks: tasks,
    tasksOf,
    topologyDef: def,
    placementOf: (c) => opts.placement?.(c) ?? { running: c === component ? tasks : [], unplaced: [], reason: null },
    onPlacementChange: (listener) => {
      placementListeners.add(listener);
      return () => placementListeners.delete(listener);
    },
    firePlacementChange: () => {
      for (const l of placementListeners) l();
    },
    stateStore: opts.stateStore ?? new MemoryStateStore(),
    codeDir: process.cwd(),
    workerPort: 6700,
    gpu: null,
    log: { trace: rec('trace'), debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') },
    sendSignal: (target, name, value) => bus.send(target, name, value, { component, task: taskId }),
    onSignal: (name, handler) => bus.on(component, name, handler as (s: Signal) => void),
    completeListeners: [],
    busyTime: null,
    reportBusyTime(supplier) {
      this.busyTime = supplier;
    },
    sections: new Map(),
    logged,
    onTupleComplete(listener) {
      this.completeListeners.push(listener);
    },
    reportMetrics<K extends keyof ComponentMetricSections>(section: K, supplier: () => ComponentMetricSections[K]) {
      this.sections.set(section, supplier);
    },
    componentLoad: (c) => Promise.resolve(opts.componentLoad?.(c) ?? { executors: 0, meanServiceMs: null }),
    acquireGpuBackend: () => (opts.gpuBackend ? opts.gpuBackend() : Promise.reject(new Error('no GPU backend in this fake context'))),
    metrics,
    registerCounter: (name) => metrics.counter(name),
    registerGauge: (name, gauge) => metrics.gauge(name, gauge),
    registerHistogram: (name) => metrics.histogram(name),
    registerMeter: (name) => metrics.meter(name),
  };
  return ctx;
}
