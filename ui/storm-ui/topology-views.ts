/**
 * Storm UI REST API, topology level: `/topology/:id`, `/topology/:id/component/:component`
 * and `/topology/:id/metrics`, with Storm's field names. Counters over Storm's
 * windows come from nimbus's windowed statistics (stats/topology-stats.ts);
 * errors, user metrics and GPU details from the current heartbeats. hstorm's
 * own figures — the GPU and the scheduler's reason of each worker, the GPU
 * backend and adapter of GPU components, γ/δ over time, a windowed bolt's
 * windows — are under `hstorm`.
 */
import { withDefaults } from '../../common/config/index.js';
import { ACKER_COMPONENT, type ComponentDef } from '../../common/topology-def.js';
import type { TopologySnapshot } from '../../nimbus/read-model.js';
import { STORM_WINDOWS, type StatsHistory, type StormWindow, type WindowStats } from '../stats/topology-stats.js';
import { topologyRecord } from './cluster-views.js';
import { errorsOf, foldGpu, taskBeats, type ReportedError, type TaskBeat } from './executor-beats.js';
import { foldUserMetrics } from '../../common/user-metrics-fold.js';
import { executorId, fixed3, prettyUptime, windowPretty } from './format.js';

/** A topology as nimbus's read model sees it, with the windowed statistics and the window and components asked for. */
export interface TopologyInput extends TopologySnapshot {
  stats: StatsHistory;
  window: StormWindow;
  sys: boolean;
}

/** The components shown: the topology's own, and the ackers with `sys=1`. */
function componentIds(t: TopologyInput): { id: string; kind: 'spout' | 'bolt'; def: ComponentDef | null }[] {
  const out: { id: string; kind: 'spout' | 'bolt'; def: ComponentDef | null }[] = t.storm.def.components.map((c) => ({ id: c.id, kind: c.kind, def: c }));
  if (t.sys && t.detail.components[ACKER_COMPONENT]) out.push({ id: ACKER_COMPONENT, kind: 'bolt', def: null });
  return out;
}

function tasksOf(t: TopologyInput, component: string): number[] {
  const out: number[] = [];
  for (const w of t.assignment?.workers ?? []) for (const e of w.executors) if (e.component === component) out.push(e.task);
  for (const e of t.assignment?.unassigned ?? []) if (e.component === component) out.push(e.task);
  return out.sort((a, b) => a - b);
}

function lastError(errors: ReportedError[], now: number) {
  const e = errors[0];
  return {
    lastError: e?.error ?? '',
    errorHost: e?.host ?? '',
    errorPort: e?.port ?? null,
    errorTime: e ? Math.floor(e.time / 1000) : null,
    errorLapsedSecs: e ? Math.max(0, Math.round((now - e.time) / 1000)) : null,
    errorWorkerLogLink: '',
  };
}

function windowRow(w: StormWindow, s: WindowStats) {
  return { windowPretty: windowPretty(w), window: w, emitted: s.emitted, transferred: s.transferred, acked: s.acked, failed: s.failed };
}

interface ComponentParts {
  id: string;
  kind: 'spout' | 'bolt';
  def: ComponentDef | null;
  tasks: number[];
  beats: TaskBeat[];
  stats: WindowStats;
}

function partsOf(t: TopologyInput, byTask: Map<number, TaskBeat>): ComponentParts[] {
  return componentIds(t).map(({ id, kind, def }) => {
    const tasks = tasksOf(t, id);
    return { id, kind, def, tasks, beats: tasks.flatMap((k) => byTask.get(k) ?? []), stats: t.stats.tasks(t.storm.id, tasks, t.window, t.now) };
  });
}

function hstormComponent(t: TopologyInput, p: ComponentParts) {
  const current = t.detail.components[p.id];
  return {
    gpuComponent: p.def?.gpu != null,
    gpu: foldGpu(p.beats.map((b) => b.metrics)),
    userMetrics: foldUserMetrics(p.beats.map((b) => ({ task: b.task, user: b.metrics.user }))),
    split: current?.split ?? null,
    /** Windowed bolts: the window, windows evaluated, tuples per window, late tuples, watermark lag (issue 23). */
    window: current?.window ?? null,
    /** Stateful bolts and the checkpoint spout: last committed transaction, checkpoint time, keys, recoveries (issue 24). */
    state: current?.state ?? null,
    /** Tuples failed at once towards a component with no running task, per stream and target (issue 30). */
    unplacedTargets: current?.unplacedTargets ?? [],
    /** Busy share of the last heartbeat period (what `hstorm describe` shows), max over the tasks. */
    currentCapacity: current?.capacity ?? null,
    /** Tracked tuples dropped unexecuted: their trees had timed out at their spouts (issue 28). */
    staleTuples: current?.staleTuples ?? 0,
    completeLatencyP99Ms: current?.completeLatencyP99Ms ?? null,
  };
}

function spoutRow(t: TopologyInput, p: ComponentParts) {
  return {
    spoutId: p.id,
    encodedSpoutId: encodeURIComponent(p.id),
    executors: p.tasks.length,
    tasks: p.tasks.length,
    emitted: p.stats.emitted,
    transferred: p.stats.transferred,
    completeLatency: fixed3(p.stats.completeLatencyMs),
    acked: p.stats.acked,
    failed: p.stats.failed,
    ...lastError(errorsOf(p.beats), t.now),
    requestedMemOnHeap: null,
    requestedMemOffHeap: null,
    requestedCpu: null,
    hstorm: hstormComponent(t, p),
  };
}

function boltRow(t: TopologyInput, p: ComponentParts) {
  return {
    boltId: p.id,
    encodedBoltId: encodeURIComponent(p.id),
    executors: p.tasks.length,
    tasks: p.tasks.length,
    emitted: p.stats.emitted,
    transferred: p.stats.transferred,
    acked: p.stats.acked,
    failed: p.stats.failed,
    executed: p.stats.executed,
    executeLatency: fixed3(p.stats.executeLatencyMs),
    // hstorm does not time a tuple from arrival to ack.
    processLatency: null,
    capacity: fixed3(p.stats.capacity ?? t.detail.components[p.id]?.capacity ?? null),
    ...lastError(errorsOf(p.beats), t.now),
    requestedMemOnHeap: null,
    requestedMemOffHeap: null,
    requestedCpu: null,
    hstorm: hstormComponent(t, p),
  };
}

function workerRows(t: TopologyInput) {
  return t.detail.workers.map((w) => {
    const counts: Record<string, number> = {};
    for (const e of w.executors) counts[e.component] = e.tasks.length;
    const up = w.metrics?.uptimeSecs ?? 0;
    const use = t.nodes.get(w.supervisor)?.workers.find((x) => x.port === w.port && x.topologyId === t.storm.id);
    return {
      supervisorId: w.supervisor,
      host: w.host,
      port: w.port,
      topologyId: t.storm.id,
      topologyName: t.storm.name,
      executorsTotal: w.executors.reduce((n, e) => n + e.tasks.length, 0),
      assignedMemOnHeap: w.resources?.memoryMB ?? null,
      assignedMemOffHeap: w.resources ? 0 : null,
      assignedCpu: w.resources ? Math.round(w.resources.cpu * 1000) / 10 : null,
      componentNumTasks: counts,
      uptime: prettyUptime(up),
      uptimeSeconds: up,
      workerLogLink: '',
      hstorm: {
        slot: w.gpu ? 'gpu' : 'cpu',
        gpu: w.gpu ? { ...w.gpu, declared: w.gpu.source === 'declared' } : null,
        reason: w.reason,
        liveness: w.liveness,
        pid: w.metrics?.pid ?? null,
        rssMB: use?.rssMB ?? w.metrics?.rssMB ?? null,
        cpu: use?.cpu ?? null,
        droppedFrames: w.metrics?.droppedFrames ?? null,
        // Issue 28: frames fenced from stranded workers (of droppedFrames), stale tuples dropped, spouts paused without ZooKeeper.
        staleFrames: w.metrics?.staleFrames ?? null,
        staleTuples: w.metrics?.staleTuples ?? null,
        spoutsPaused: w.metrics?.spoutsPaused ?? null,
        // The supervisor's account of this worker's deaths: crashLooping, the last exit and the last error in its log.
        exits: w.exits,
      },
    };
  });
}

/** Storm's topologyStats: spouts' acks, fails and complete latency; emits of every (non-system) component. */
function topologyStats(t: TopologyInput) {
  const all = componentIds({ ...t, sys: false });
  const spoutTasks = all.filter((c) => c.kind === 'spout').flatMap((c) => tasksOf(t, c.id));
  const allTasks = all.flatMap((c) => tasksOf(t, c.id));
  return STORM_WINDOWS.map((w) => {
    const emits = t.stats.tasks(t.storm.id, allTasks, w, t.now);
    const spouts = t.stats.tasks(t.storm.id, spoutTasks, w, t.now);
    return {
      ...windowRow(w, { ...emits, acked: spouts.acked, failed: spouts.failed }),
      completeLatency: fixed3(spouts.completeLatencyMs),
      hstorm: { observedSecs: emits.observedMs === null ? null : Math.round(emits.observedMs / 1000) },
    };
  });
}

export function topologyPage(t: TopologyInput) {
  const byTask = taskBeats(t.assignment, t.beats);
  const parts = partsOf(t, byTask);
  const base = topologyRecord(t.storm, t.assignment, t.now, t.holdings);
  const cfg = t.storm.config;
  return {
    id: base.id,
    encodedId: base.encodedId,
    name: base.name,
    uptime: base.uptime,
    uptimeSeconds: base.uptimeSeconds,
    status: base.status,
    tasksTotal: base.tasksTotal,
    workersTotal: base.workersTotal,
    executorsTotal: base.executorsTotal,
    msgTimeout: withDefaults(cfg)['topology.message.timeout.secs'],
    window: t.window,
    windowHint: windowPretty(t.window),
    schedulerDisplayResource: false,
    replicationCount: 1,
    debug: false,
    samplingPct: null,
    assignedMemOnHeap: base.assignedMemOnHeap,
    assignedMemOffHeap: base.assignedMemOffHeap,
    assignedTotalMem: base.assignedTotalMem,
    assignedCpu: base.assignedCpu,
    requestedMemOnHeap: base.requestedMemOnHeap,
    requestedMemOffHeap: base.requestedMemOffHeap,
    requestedCpu: base.requestedCpu,
    topologyStats: topologyStats(t),
    workers: workerRows(t),
    spouts: parts.filter((p) => p.kind === 'spout').map((p) => spoutRow(t, p)),
    bolts: parts.filter((p) => p.kind === 'bolt').map((p) => boltRow(t, p)),
    configuration: cfg,
    hstorm: {
      ...base.hstorm,
      unassignedExecutors: t.assignment?.unassigned ?? [],
      errors: errorsOf(byTask.values()).map((e) => ({ ...e, component: byTask.get(e.task)?.component ?? '' })),
      /** γ, δ and the CPU/GPU latencies of the split spouts, one point per task and heartbeat, oldest first. */
      splitSeries: t.splitPoints,
    },
  };
}

export function componentPage(t: TopologyInput, component: string) {
  const byTask = taskBeats(t.assignment, t.beats);
  const def = t.storm.def.components.find((c) => c.id === component) ?? null;
  const kind: 'spout' | 'bolt' = def?.kind ?? 'bolt';
  const tasks = tasksOf(t, component);
  const beats = tasks.flatMap((k) => byTask.get(k) ?? []);
  const parts: ComponentParts = { id: component, kind, def, tasks, beats, stats: t.stats.tasks(t.storm.id, tasks, t.window, t.now) };
  const places = t.stats.places(t.storm.id);
  const summary = STORM_WINDOWS.map((w) => {
    const s = t.stats.tasks(t.storm.id, tasks, w, t.now);
    return kind === 'spout'
      ? { ...windowRow(w, s), completeLatency: fixed3(s.completeLatencyMs) }
      : { ...windowRow(w, s), executed: s.executed, executeLatency: fixed3(s.executeLatencyMs), processLatency: null, capacity: fixed3(s.capacity) };
  });
  const executorStats = tasks.map((task) => {
    const s = t.stats.task(t.storm.id, task, t.window, t.now);
    const b = byTask.get(task);
    const place = places.get(task);
    const up = b?.uptimeSecs ?? place?.uptimeSecs ?? 0;
    const row = {
      id: executorId(task),
      encodedId: encodeURIComponent(executorId(task)),
      host: b?.host ?? place?.host ?? '',
      port: b?.port ?? place?.port ?? null,
      uptime: prettyUptime(up),
      uptimeSeconds: up,
      emitted: s?.emitted ?? 0,
      transferred: s?.transferred ?? 0,
      acked: s?.acked ?? 0,
      failed: s?.failed ?? 0,
      workerLogLink: '',
    };
    const hstorm = {
      task,
      gpu: b?.metrics.gpu ?? null,
      userMetrics: b ? foldUserMetrics([{ task, user: b.metrics.user }]) : null,
      currentCapacity: b?.metrics.capacity ?? null,
      queueDepth: b?.metrics.queueDepth ?? null,
    };
    return kind === 'spout'
      ? { ...row, completeLatency: fixed3(s?.completeLatencyMs), hstorm }
      : { ...row, executed: s?.executed ?? 0, executeLatency: fixed3(s?.executeLatencyMs), processLatency: null, capacity: fixed3(s?.capacity ?? b?.metrics.capacity), hstorm };
  });
  const errors = errorsOf(beats);
  return {
    user: null,
    id: component,
    encodedId: encodeURIComponent(component),
    name: t.storm.name,
    executors: tasks.length,
    tasks: tasks.length,
    requestedMemOnHeap: null,
    requestedMemOffHeap: null,
    requestedCpu: null,
    schedulerDisplayResource: false,
    topologyId: t.storm.id,
    topologyStatus: t.detail.status.toUpperCase(),
    encodedTopologyId: encodeURIComponent(t.storm.id),
    window: t.window,
    componentType: kind,
    windowHint: windowPretty(t.window),
    debug: false,
    samplingPct: null,
    eventLogLink: '',
    profilingAndDebuggingCapable: false,
    profileActionEnabled: false,
    profilerActive: [],
    componentErrors: errors.map((e) => ({
      errorTime: e.time,
      errorHost: e.host,
      errorPort: e.port,
      error: e.error,
      errorLapsedSecs: Math.max(0, Math.round((t.now - e.time) / 1000)),
      errorWorkerLogLink: '',
    })),
    ...(kind === 'spout' ? { spoutSummary: summary } : { boltStats: summary, inputStats: [] as unknown[] }),
    outputStats: [] as unknown[],
    executorStats,
    hstorm: { ...hstormComponent(t, parts), inputs: def?.inputs ?? [], streams: def?.streams.map((s) => s.id) ?? [] },
  };
}

/** One entry per component: hstorm counts per component, so a stream id is given only when the component has just one. */
function streamValue(streams: readonly string[], value: number | string | null) {
  return streams.length === 0 ? [] : [{ stream_id: streams.length === 1 ? streams[0]! : ':all', value }];
}

function inputValue(def: ComponentDef | null, value: number | string | null) {
  const only = def && def.inputs.length === 1 ? def.inputs[0]! : null;
  return [{ component_id: only?.component ?? ':all', stream_id: only?.stream ?? ':all', value }];
}

export function topologyMetrics(t: TopologyInput) {
  const byTask = taskBeats(t.assignment, t.beats);
  const parts = partsOf(t, byTask);
  const streams = (p: ComponentParts) => p.def?.streams.map((s) => s.id) ?? [];
  return {
    window: t.window,
    'window-hint': windowPretty(t.window),
    windowHint: windowPretty(t.window),
    spouts: parts
      .filter((p) => p.kind === 'spout')
      .map((p) => ({
        id: p.id,
        emitted: streamValue(streams(p), p.stats.emitted),
        transferred: streamValue(streams(p), p.stats.transferred),
        acked: streamValue(streams(p), p.stats.acked),
        failed: streamValue(streams(p), p.stats.failed),
        complete_ms_avg: streamValue(streams(p), fixed3(p.stats.completeLatencyMs)),
      })),
    bolts: parts
      .filter((p) => p.kind === 'bolt')
      .map((p) => ({
        id: p.id,
        emitted: streamValue(streams(p), p.stats.emitted),
        transferred: streamValue(streams(p), p.stats.transferred),
        acked: inputValue(p.def, p.stats.acked),
        failed: inputValue(p.def, p.stats.failed),
        process_ms_avg: [],
        executed: inputValue(p.def, p.stats.executed),
        executed_ms_avg: inputValue(p.def, fixed3(p.stats.executeLatencyMs)),
      })),
    hstorm: {
      userMetrics: Object.fromEntries(parts.map((p) => [p.id, foldUserMetrics(p.beats.map((b) => ({ task: b.task, user: b.metrics.user })))])),
      gpu: Object.fromEntries(parts.flatMap((p) => (p.def?.gpu != null ? [[p.id, foldGpu(p.beats.map((b) => b.metrics))]] : []))),
      splitSeries: t.splitPoints,
    },
  };
}

export type TopologyPageView = ReturnType<typeof topologyPage>;
export type ComponentPageView = ReturnType<typeof componentPage>;
export type TopologyMetricsView = ReturnType<typeof topologyMetrics>;
