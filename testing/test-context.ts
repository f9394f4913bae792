/**
 * A TopologyContext for unit tests of one spout or bolt (what Storm users mock): who the task is — with Storm's
 * getters answered from the topology when given — a logger that records, user metrics that can be read back,
 * signals and tuple completions the test delivers by hand. Nothing runs in the background.
 *
 * @example
 * const ctx = testContext({ topology, component: 'count', task: 3 });
 * bolt.prepare({}, ctx, new CapturingOutputCollector());
 * ctx.metricsNow().counters['words.seen'];
 */
import { computeTasks, type TopologyDef } from '../common/topology-def.js';
import type { UserMetricsSnapshot } from '../common/storm-base.js';
import type { ComponentMetricSections, ComponentPlacement, Signal, TopologyContext, TupleCompleteListener } from '../topology-sdk/context.js';
import { stormContextGetters } from '../topology-sdk/internal/storm-context.js';
import type { StormTopology } from '../topology-sdk/topology-builder.js';
import { MetricRegistry } from '../topology-sdk/user-metrics.js';
import { MemoryStateStore, type StateStore } from '../common/state-store/index.js';

export interface TestContextOptions {
  /** Component id; default "component", or the topology's first. */
  component?: string;
  /** This task's id; default the component's first task (1 without a topology). */
  task?: number;
  /** The topology the task is part of: its definition answers getComponentTasks, getThisSources and the like. */
  topology?: StormTopology;
  /** Acker tasks the task numbering counts (as topology.acker.executors); default 1. */
  ackers?: number;
  /** Topology id; default "test-1". */
  topologyId?: string;
  /** Where a stateful bolt's state lives (its KeyValueState): default a memory store of its own. */
  stateStore?: StateStore;
}

export interface LoggedLine {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  obj: object | string;
  msg: string | undefined;
}

export interface TestContext extends TopologyContext {
  /** What the component logged through `log`. */
  readonly logged: LoggedLine[];
  /** Signals the component sent (sendSignal). */
  readonly signalsSent: { component: string; name: string; value: unknown }[];
  /** The component's user metrics now (what a heartbeat would report). */
  metricsNow(): UserMetricsSnapshot;
  /** Delivers a signal to the handler the component registered for `name` (as another task's sendSignal would). */
  deliverSignal(name: string, value: unknown): void;
  /** Tells the component's onTupleComplete listeners a tracked message completed (spouts). */
  completeTuple(stream: string, latencyMs: number, acked: boolean): void;
  /** The sections the component added with reportMetrics, read now. */
  sectionsNow(): Record<string, unknown>;
}

export function testContext(opts: TestContextOptions = {}): TestContext {
  const def: TopologyDef = opts.topology?.def ?? { components: [], config: {} };
  const component = opts.component ?? def.components[0]?.id ?? 'component';
  const numbered = computeTasks(def, opts.ackers ?? 1);
  const fromDef = (c: string) => numbered.filter((t) => t.component === c).map((t) => t.task);
  const own = fromDef(component);
  const taskId = opts.task ?? own[0] ?? 1;
  const tasksOf = (c: string): number[] => (c === component && own.length === 0 ? [taskId] : fromDef(c));
  const topologyId = opts.topologyId ?? 'test-1';
  const metrics = new MetricRegistry();
  const logged: LoggedLine[] = [];
  const signalsSent: TestContext['signalsSent'] = [];
  const handlers = new Map<string, (s: Signal) => void>();
  const listeners: TupleCompleteListener[] = [];
  const sections = new Map<string, () => unknown>();
  const seqs = new Map<string, number>();
  const log = (level: LoggedLine['level']) => (obj: object | string, msg?: string) => void logged.push({ level, obj, msg });
  const placementOf = (c: string): ComponentPlacement => ({ running: tasksOf(c), unplaced: [], reason: null });
  return {
    ...stormContextGetters({ def, topologyId, componentId: component, taskId, workerPort: 0, tasksOf }),
    topologyId,
    topologyName: topologyId.replace(/-\d+$/, ''),
    componentId: component,
    taskId,
    taskIndex: tasksOf(component).indexOf(taskId),
    componentTasks: tasksOf(component),
    tasksOf,
    placementOf,
    onPlacementChange: () => () => undefined,
    stateStore: opts.stateStore ?? new MemoryStateStore(),
    topologyDef: def,
    codeDir: process.cwd(),
    workerPort: 0,
    gpu: null,
    log: { trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    sendSignal: (target, name, value) => {
      signalsSent.push({ component: target, name, value });
      return Promise.resolve();
    },
    onSignal: (name, handler) => void handlers.set(name, handler as (s: Signal) => void),
    onTupleComplete: (listener) => void listeners.push(listener),
    reportBusyTime: () => undefined,
    reportMetrics: <K extends keyof ComponentMetricSections>(section: K, supplier: () => ComponentMetricSections[K]) => void sections.set(section, supplier),
    componentLoad: () => Promise.resolve({ executors: 0, meanServiceMs: null }),
    acquireGpuBackend: () => Promise.reject(new Error('testContext has no GPU backend: test a GpuBolt with completeTopology (its kernels run on a CPU backend there)')),
    registerCounter: (name) => metrics.counter(name),
    registerGauge: (name, gauge) => metrics.gauge(name, gauge),
    registerHistogram: (name) => metrics.histogram(name),
    registerMeter: (name) => metrics.meter(name),
    logged,
    signalsSent,
    metricsNow: () => metrics.snapshot(),
    deliverSignal: (name, value) => {
      const seq = (seqs.get(name) ?? -1) + 1;
      seqs.set(name, seq);
      handlers.get(name)?.({ name, value, seq, from: { component: 'test', task: 0 }, time: Date.now() });
    },
    completeTuple: (stream, latencyMs, acked) => {
      for (const l of listeners) l(stream, latencyMs, acked);
    },
    sectionsNow: () => Object.fromEntries([...sections].map(([k, f]) => [k, f()])),
  };
}
