/**
 * Folds worker heartbeats into the summary `hstorm local` prints: totals per
 * component and for the topology, with latency percentiles merged from the
 * executors' histograms (not averaged). In words: run-summary-format.ts.
 */
import { gpuSummary, rollup, type ComponentGpuSummary } from '../common/metrics-rollup.js';
import { ACKER_COMPONENT } from '../common/topology-def.js';
import { stateRollup, type ComponentStateStats } from '../common/state-rollup.js';
import type { ExecutorMetrics, LatencyStats, TupleCounters, WindowMetrics, WorkerHeartbeat } from '../common/storm-base.js';
import type { TypeCheckResult } from './type-check.js';
import type { WorkerCrash } from './worker-history.js';
import { foldUserMetrics, type ComponentUserMetrics } from '../common/user-metrics-fold.js';

export interface ComponentSummary extends TupleCounters {
  executors: number;
  /** Tick tuples executed, counted apart from the data tuples; absent when none. */
  ticks?: number;
  executeLatencyMs: LatencyStats;
  completeLatencyMs?: LatencyStats;
  /** Busy share over the run (the busiest executor's; GPU bolts: kernel busy time). */
  capacity: number;
  /** GPU bolts: what actually ran; `onGpu` is false when every backend was a CPU one, `onHardwareGpu` also when the GPU was a software adapter. */
  gpu?: ComponentGpuSummary;
  split?: ExecutorMetrics['split'][];
  /** Windowed bolts: each task's window section. */
  window?: WindowMetrics[];
  /** Stateful bolts and the checkpoint spout: their state, summed over tasks. */
  state?: ComponentStateStats;
  /** The component's own counters (context.registerCounter; a multilang subprocess's `metrics`), summed over its tasks. */
  counters?: Record<string, number>;
  /** Every user metric the component registered (counters, gauges, histograms, meters), folded over its tasks. */
  userMetrics?: ComponentUserMetrics;
  /** Storm's "last error": the newest error a task of this component reported, with where and when. */
  lastError?: LastError;
  /** Errors the component's tasks still hold (each keeps its latest few). */
  errorCount?: number;
}

export interface LastError {
  error: string;
  /** Epoch ms at the worker. */
  time: number;
  host: string;
  port: number;
  task: number;
}

export interface RunSummary {
  topology: string;
  /** Worker slots (a worker restarted after a crash is one worker, two incarnations). */
  workers: number;
  /** Worker processes whose counts are summed: more than `workers` after a crash (cli/worker-history.ts). */
  incarnations: number;
  durationSec: number;
  /** Emitted by every component but the ackers (Storm UI's topology emitted). */
  emitted: number;
  /** Emitted by the topology's own spouts: the tuples whose trees end acked or failed. System spouts are in `system`. */
  spoutEmitted: number;
  acked: number;
  failed: number;
  /** The system spouts hstorm adds (`__checkpointspout`): their counts, apart from the topology's. */
  system?: Record<string, { emitted: number; acked: number; failed: number }>;
  /** Workers that died during the run, and how (`hstorm local`; absent when none did). */
  crashes?: WorkerCrash[];
  throughputPerSec: number;
  completeLatencyMs: { p50: number; p99: number; mean: number; count: number };
  droppedFrames: number;
  /** Largest resident memory of any worker at its last beat. */
  maxWorkerRssMB: number;
  components: Record<string, ComponentSummary>;
  /** Warnings and errors the workers logged (the console showed them, rate-limited). */
  workerLog?: { warnings: number; errors: number };
  /** Where the worker logs were copied (`--keep-logs`); absent: they went with the run's temp dir. */
  logsDir?: string;
  /** A TypeScript module's type check (cli/type-check.ts): what tsc reported, or why it was skipped. */
  typeCheck?: TypeCheckResult;
}


/** Components hstorm adds (ids starting with `__`: the checkpoint spout, the ackers). */
const isSystem = (id: string): boolean => id.startsWith('__');

/**
 * `spouts` names the spout components (from the topology definition): the
 * headline counts their acked and failed tuples, the system spouts'
 * (`__checkpointspout`) apart. Without it, a component
 * counts as a spout when it tracks complete latency — which a spout whose
 * every tuple failed never does, so callers with the definition pass it.
 * `declared` (the definition's component ids) puts every component in the summary,
 * in declaration order, one that never reported with zeros.
 * `gone`: the last heartbeats of worker processes that died during the run
 * (cli/worker-history.ts): their tuple counts, latencies and errors are
 * summed in, so the counts cover every incarnation; what describes a task
 * now (capacity, windows, state, GPU, splits, user metrics) is the running
 * processes'.
 */
export function summarize(
  topology: string,
  beats: WorkerHeartbeat[],
  durationSec: number,
  spouts?: ReadonlySet<string>,
  declared?: readonly string[],
  gone: readonly WorkerHeartbeat[] = [],
): RunSummary {
  const byComponent = new Map<string, ExecutorMetrics[]>();
  const earlier = new Map<string, ExecutorMetrics[]>();
  // Every component of the definition is in the summary, one whose workers never beat too (with zeros): not left out.
  for (const id of declared ?? []) byComponent.set(id, []);
  const lastErrors = new Map<string, { last: LastError; count: number }>();
  const add = (into: Map<string, ExecutorMetrics[]>, e: ExecutorMetrics): void => {
    const list = into.get(e.component);
    if (list) list.push(e);
    else into.set(e.component, [e]);
  };
  for (const b of [...gone, ...beats]) {
    const running = !gone.includes(b);
    for (const e of b.executors) {
      if (!byComponent.has(e.component)) byComponent.set(e.component, []);
      add(running ? byComponent : earlier, e);
      for (const err of e.errors ?? []) {
        const seen = lastErrors.get(e.component);
        const candidate = { error: err.error, time: err.time, host: b.host, port: b.port, task: e.task };
        if (!seen) lastErrors.set(e.component, { last: candidate, count: 1 });
        else {
          seen.count++;
          if (err.time > seen.last.time) seen.last = candidate;
        }
      }
    }
  }
  const components: Record<string, ComponentSummary> = {};
  let emitted = 0;
  const spoutExecs: ExecutorMetrics[] = [];
  const system: NonNullable<RunSummary['system']> = {};
  for (const [id, list] of byComponent) {
    const r = rollup(list);
    // Counters and latencies over every incarnation of the component's tasks.
    const all = [...(earlier.get(id) ?? []), ...list];
    const t = all.length === list.length ? r : rollup(all);
    const c: ComponentSummary = {
      executors: r.executors,
      emitted: t.emitted,
      transferred: t.transferred,
      executed: t.executed,
      acked: t.acked,
      failed: t.failed,
      executeLatencyMs: t.execute.stats(),
      // The last report period is usually the idle drain at the end: over the run says how busy the component was.
      capacity: Math.round((r.capacityOverLife ?? r.capacity) * 1000) / 1000,
    };
    if (t.ticks > 0) c.ticks = t.ticks;
    if (t.tracksComplete) c.completeLatencyMs = t.complete.stats();
    if (spouts ? spouts.has(id) : t.tracksComplete) {
      if (isSystem(id)) system[id] = { emitted: t.emitted, acked: t.acked, failed: t.failed };
      else spoutExecs.push(...all);
    }
    const errs = lastErrors.get(id);
    if (errs) {
      c.lastError = errs.last;
      c.errorCount = errs.count;
    }
    const gpu = gpuSummary(r);
    if (gpu) c.gpu = gpu;
    const splits = list.flatMap((e) => (e.split ? [e.split] : []));
    if (splits.length > 0) c.split = splits;
    const windows = list.flatMap((e) => (e.window ? [e.window] : []));
    if (windows.length > 0) c.window = windows;
    const states = list.flatMap((e) => (e.state ? [e.state] : []));
    if (states.length > 0) c.state = stateRollup(states[0]!.role, states);
    const user = foldUserMetrics(list.map((e) => ({ task: e.task, user: e.user })));
    if (user) {
      c.userMetrics = user;
      if (Object.keys(user.counters).length > 0) c.counters = user.counters;
    }
    components[id] = c;
    if (id !== ACKER_COMPONENT) emitted += c.emitted;
  }
  const complete = rollup(spoutExecs).complete;
  const spoutEmitted = spoutExecs.reduce((s, e) => s + e.emitted, 0);
  const acked = spoutExecs.reduce((s, e) => s + e.acked, 0);
  const failed = spoutExecs.reduce((s, e) => s + e.failed, 0);
  const cs = complete.stats();
  return {
    topology,
    workers: new Set(beats.map((b) => `${b.host}:${b.port}`)).size,
    incarnations: beats.length + gone.length,
    durationSec: Math.round(durationSec * 10) / 10,
    emitted,
    spoutEmitted,
    acked,
    failed,
    ...(Object.keys(system).length > 0 && { system }),
    throughputPerSec: durationSec > 0 ? Math.round(acked / durationSec) : 0,
    completeLatencyMs: { p50: cs.p50, p99: cs.p99, mean: cs.mean, count: cs.count },
    droppedFrames: [...gone, ...beats].reduce((s, b) => s + b.droppedFrames, 0),
    maxWorkerRssMB: Math.max(0, ...beats.map((b) => b.rssMB)),
    components,
  };
}

/** Something failed in the run: a tuple, a component's error, an error line in a worker log, or a worker died. */
export function failedRun(s: RunSummary): boolean {
  return (s.workerLog?.errors ?? 0) > 0 || (s.crashes?.length ?? 0) > 0 || Object.values(s.components).some((c) => c.failed > 0 || c.lastError !== undefined);
}
