/**
 * Builds the views of views.ts from what the store holds: topology detail
 * (components with metrics aggregated from worker heartbeats, workers with
 * their executors grouped per component), topology list rows, supervisor rows
 * with GPU slot use computed from assignments.
 */
import { workerKey, type Assignment } from '../common/assignment.js';
import { withDefaults } from '../common/config/index.js';
import { ACKER_COMPONENT, CHECKPOINT_COMPONENT, type ComponentDef } from '../common/topology-def.js';
import { emptyStateStats, stateRollup } from '../common/state-rollup.js';
import type { StateMetrics } from '../common/storm-base.js';
import { describeWindow } from '../common/window-text.js';
import { gpuSummary, rollup } from '../common/metrics-rollup.js';
import { foldUserMetrics } from '../common/user-metrics-fold.js';
import type { ParsedWorkerHeartbeat } from '../common/record-schemas.js';
import { gpuPerformance, type ResourceVector, type SupervisorInfo, type WorkerExitReport } from '../common/resources.js';
import type { StormBase } from '../common/storm-base.js';
import { queueView, requestOf, resourcesView } from './fairness-views.js';
import type { WorkerLiveness } from './heartbeat-tracker.js';
import type { TopologyHoldings } from './read-model.js';
import { demandsOf, workerResources } from './placement.js';
import { describeQueue } from './scheduler/index.js';
import type { ComponentStats, SupervisorSummary, TopologyDetail, TopologySummary, WorkerDetail } from './views.js';

type ExecutorMetrics = ParsedWorkerHeartbeat['executors'][number];

function emptyStats(kind: ComponentStats['kind'], gpu: boolean, executors: number, def?: ComponentDef): ComponentStats {
  const window = def?.window;
  return {
    kind,
    gpu,
    executors,
    emitted: 0,
    transferred: 0,
    executed: 0,
    acked: 0,
    failed: 0,
    ticks: 0,
    staleTuples: 0,
    executeLatencyMs: null,
    completeLatencyMs: null,
    completeLatencyP50Ms: null,
    completeLatencyP99Ms: null,
    capacity: 0,
    backends: [],
    fallback: false,
    fallbackReasons: [],
    gpuKernels: null,
    split: null,
    // A windowed bolt shows its window before its first heartbeat; the counts come from the tasks' sections.
    window: window ? { spec: describeWindow(window), eventTime: window.eventTime, windows: 0, failedWindows: 0, meanWindowTuples: null, maxWindowTuples: 0, held: 0, lateDropped: 0, lateRouted: 0, watermarkLagMs: null } : null,
    // A stateful bolt (and the checkpoint spout) shows its state section before its first heartbeat too.
    state: def?.state ? emptyStateStats('bolt') : def?.id === CHECKPOINT_COMPONENT ? emptyStateStats('checkpoint') : null,
    lastError: null,
    unplacedTargets: [],
  };
}

/** Each component's executor metrics, kept until the end so latency histograms merge once. */
type Parts = ExecutorMetrics[];

function addExecutor(s: ComponentStats, parts: Parts, m: ExecutorMetrics): void {
  parts.push(m);
  // The controller task holds the window's own δ and latencies; the others hold copies from its last signal.
  if (m.split && (!s.split || (m.split.controller === true && s.split.controller !== true))) s.split = { ...m.split };
  if (m.window) addWindow(s, m.window);
  for (const u of m.unplacedTargets ?? []) {
    const same = s.unplacedTargets.find((x) => x.component === u.component && x.stream === u.stream);
    if (same) same.tuples += u.tuples;
    else s.unplacedTargets.push({ ...u });
  }
}

function addWindow(s: ComponentStats, w: NonNullable<ExecutorMetrics['window']>): void {
  const c = (s.window ??= { spec: w.spec, eventTime: w.eventTime, windows: 0, failedWindows: 0, meanWindowTuples: null, maxWindowTuples: 0, held: 0, lateDropped: 0, lateRouted: 0, watermarkLagMs: null });
  const tuples = (c.meanWindowTuples ?? 0) * c.windows + w.windowTuples;
  c.windows += w.windows;
  c.failedWindows += w.failedWindows;
  c.meanWindowTuples = c.windows > 0 ? tuples / c.windows : null;
  c.maxWindowTuples = Math.max(c.maxWindowTuples, w.maxWindowTuples);
  c.held += w.held;
  c.lateDropped += w.lateDropped;
  c.lateRouted += w.lateRouted;
  if (w.watermarkLagMs !== null) c.watermarkLagMs = Math.max(c.watermarkLagMs ?? 0, w.watermarkLagMs);
}

/** Executors grouped per component, tasks sorted: `{ component, tasks }` in first-seen order. */
export function groupExecutors(executors: readonly { component: string; task: number }[]): { component: string; tasks: number[] }[] {
  const by = new Map<string, number[]>();
  for (const e of executors) {
    let list = by.get(e.component);
    if (!list) by.set(e.component, (list = []));
    list.push(e.task);
  }
  return [...by].map(([component, tasks]) => ({ component, tasks: tasks.sort((a, b) => a - b) }));
}

function workerMetrics(hb: ParsedWorkerHeartbeat): WorkerDetail['metrics'] {
  let emitted = 0;
  let transferred = 0;
  let acked = 0;
  let failed = 0;
  for (const m of hb.executors) {
    emitted += m.emitted;
    transferred += m.transferred;
    acked += m.acked;
    failed += m.failed;
  }
  return {
    pid: hb.pid,
    uptimeSecs: hb.uptimeSecs,
    rssMB: hb.rssMB,
    droppedFrames: hb.droppedFrames,
    backpressure: hb.backpressure ?? null,
    staleFrames: hb.staleFrames ?? 0,
    staleTuples: hb.staleTuples ?? 0,
    spoutsPaused: hb.spoutsPaused ?? false,
    heartbeatTime: hb.time,
    epoch: hb.epoch,
    emitted,
    transferred,
    acked,
    failed,
  };
}

export function topologyDetail(
  storm: StormBase,
  assignment: Assignment | null,
  heartbeats: ReadonlyMap<string, ParsedWorkerHeartbeat>,
  liveness: (w: { supervisorId: string; port: number }) => WorkerLiveness,
  totals: ResourceVector,
  now = Date.now(),
  supervisors: Iterable<SupervisorInfo> = [],
): TopologyDetail {
  const exits = exitsOf(supervisors, storm.id);
  const components: Record<string, ComponentStats> = {};
  const sums = new Map<string, Parts>();
  for (const c of storm.def.components) {
    components[c.id] = emptyStats(c.kind, c.gpu !== null, c.parallelism, c);
    sums.set(c.id, []);
  }
  const ackers = new Set<number>();
  for (const w of assignment?.workers ?? []) for (const e of w.executors) if (e.component === ACKER_COMPONENT) ackers.add(e.task);
  for (const e of assignment?.unassigned ?? []) if (e.component === ACKER_COMPONENT) ackers.add(e.task);
  if (ackers.size > 0) {
    components[ACKER_COMPONENT] = emptyStats('acker', false, ackers.size);
    sums.set(ACKER_COMPONENT, []);
  }

  const workers: WorkerDetail[] = [];
  const demands = assignment?.workers.some((w) => !w.resources) ? demandsOf(storm) : undefined;
  for (const w of assignment?.workers ?? []) {
    // Only a heartbeat from this very slot counts; a beat left by a worker that moved away does not.
    const hb = heartbeats.get(`${w.supervisorId}-${w.port}`) ?? null;
    const assigned = new Set(w.executors.map((e) => e.task));
    if (hb) {
      for (const m of hb.executors) {
        const s = components[m.component];
        const sum = sums.get(m.component);
        if (s && sum && assigned.has(m.task)) {
          addExecutor(s, sum, m);
          for (const e of m.errors ?? []) {
            if (!s.lastError || e.time > s.lastError.time) s.lastError = { error: e.error, time: e.time, host: hb.host, port: hb.port, task: m.task };
          }
        }
      }
    }
    workers.push({
      supervisor: w.supervisorId,
      host: w.host,
      port: w.port,
      gpu: w.gpu,
      executors: groupExecutors(w.executors),
      reason: w.reason,
      resources: workerResources(storm, w, demands),
      liveness: liveness(w),
      metrics: hb ? workerMetrics(hb) : null,
      exits: exits.get(`${w.supervisorId}-${w.port}`) ?? null,
    });
  }
  for (const [id, s] of Object.entries(components)) {
    const parts = sums.get(id);
    if (!parts) continue;
    const r = rollup(parts);
    const user = foldUserMetrics(parts.map((m) => ({ task: m.task, user: m.user })));
    if (user) s.userMetrics = user;
    Object.assign(s, {
      emitted: r.emitted,
      transferred: r.transferred,
      executed: r.executed,
      acked: r.acked,
      failed: r.failed,
      ticks: r.ticks,
      staleTuples: r.staleTuples,
      capacity: r.capacity,
      backends: r.backends,
      fallback: r.fallback,
      fallbackReasons: r.fallbackReasons,
      gpuKernels: gpuSummary(r),
    });
    const states = parts.flatMap((m) => (m.state ? [m.state as StateMetrics] : []));
    if (states.length > 0) s.state = stateRollup(states[0]!.role, states);
    if (r.execute.count > 0) s.executeLatencyMs = r.execute.stats().mean;
    if (r.complete.count > 0) {
      const c = r.complete.stats();
      s.completeLatencyMs = c.mean;
      s.completeLatencyP50Ms = c.p50;
      s.completeLatencyP99Ms = c.p99;
    }
  }
  return {
    id: storm.id,
    name: storm.name,
    status: storm.status,
    launchTime: storm.launchTime,
    uptimeSecs: Math.max(0, Math.round((now - storm.launchTime) / 1000)),
    epoch: assignment?.epoch ?? null,
    scheduler: assignment?.scheduler ?? null,
    workersRequested: withDefaults(storm.config)['topology.workers'],
    gpuWorkersRequested: withDefaults(storm.config)['topology.gpu.workers'],
    code: storm.code,
    killWaitSecs: storm.killWaitSecs ?? null,
    resources: resourcesView(storm, assignment, totals),
    queue: queueView(assignment?.queue, now),
    workers,
    components,
    unassigned: unassignedNow(assignment, now),
    config: storm.config,
    crashLooping: workers.some((w) => w.exits?.crashLooping),
  };
}

/** The supervisors' reports of this topology's worker deaths, by `<supervisor>-<port>`. */
export function exitsOf(supervisors: Iterable<SupervisorInfo>, topologyId: string): Map<string, WorkerExitReport> {
  const out = new Map<string, WorkerExitReport>();
  for (const s of supervisors) for (const e of s.workerExits ?? []) if (e.topologyId === topologyId) out.set(`${s.id}-${e.port}`, e);
  return out;
}

/** What the Storm UI's records of a topology need from nimbus's bookkeeping, as of `now`. */
export function topologyHoldings(
  storm: StormBase,
  assignment: Assignment | null,
  totals: ResourceVector,
  supervisors: Iterable<SupervisorInfo>,
  now: number,
): TopologyHoldings {
  const exits = exitsOf(supervisors, storm.id);
  const resources = resourcesView(storm, assignment, totals);
  return {
    holds: resources.holds,
    asks: requestOf(storm),
    dominantShare: resources.dominantShare,
    queue: queueView(assignment?.queue, now),
    crashLoopingWorkers: assignment?.workers.filter((w) => exits.get(`${w.supervisorId}-${w.port}`)?.crashLooping).length ?? 0,
  };
}

/** The same, read from a topology's detail (built at the same moment from the same records). */
export function detailHoldings(storm: StormBase, detail: TopologyDetail): TopologyHoldings {
  return {
    holds: detail.resources.holds,
    asks: requestOf(storm),
    dominantShare: detail.resources.dominantShare,
    queue: detail.queue,
    crashLoopingWorkers: detail.workers.filter((w) => w.exits?.crashLooping).length,
  };
}

/** Unassigned executors; those waiting in the HDRF queue say so with the durations of now, not of when it was written. */
function unassignedNow(assignment: Assignment | null, now: number): Assignment['unassigned'] {
  const q = assignment?.queue;
  if (!assignment || !q) return assignment?.unassigned ?? [];
  const reason = `HDRF: ${describeQueue(q, now)}`;
  return assignment.unassigned.map((u) => (u.reason.startsWith('HDRF: ') ? { ...u, reason } : u));
}

export function topologySummary(
  storm: StormBase,
  assignment: Assignment | null,
  totals: ResourceVector,
  now = Date.now(),
  supervisors: Iterable<SupervisorInfo> = [],
): TopologySummary {
  const exits = exitsOf(supervisors, storm.id);
  const assigned = new Set(assignment?.workers.map((w) => `${w.supervisorId}-${w.port}`) ?? []);
  const placed = assignment?.workers.reduce((n, w) => n + w.executors.length, 0) ?? 0;
  return {
    id: storm.id,
    name: storm.name,
    status: storm.status,
    uptimeSecs: Math.max(0, Math.round((now - storm.launchTime) / 1000)),
    workersRequested: withDefaults(storm.config)['topology.workers'],
    workers: assignment?.workers.length ?? 0,
    gpuWorkersRequested: withDefaults(storm.config)['topology.gpu.workers'],
    gpuWorkers: assignment?.workers.filter((w) => w.gpu).length ?? 0,
    executors: placed + (assignment?.unassigned.length ?? 0),
    unassigned: assignment?.unassigned.length ?? 0,
    epoch: assignment?.epoch ?? null,
    scheduler: assignment?.scheduler ?? null,
    dominantShare: resourcesView(storm, assignment, totals).dominantShare,
    queue: queueView(assignment?.queue, now),
    crashLoopingWorkers: [...exits].filter(([key, e]) => e.crashLooping && assigned.has(key)).length,
  };
}

export function supervisorSummaries(
  supervisors: ReadonlyMap<string, SupervisorInfo>,
  assignments: Iterable<Assignment>,
  storms: ReadonlyMap<string, StormBase>,
  now = Date.now(),
): SupervisorSummary[] {
  const usedPorts = new Map<string, Set<number>>();
  const usedGpu = new Map<string, number>();
  const usedGpuMem = new Map<string, number>();
  for (const a of assignments) {
    const storm = storms.get(a.topologyId);
    const demands = storm && a.workers.some((w) => !w.resources) ? demandsOf(storm) : undefined;
    for (const w of a.workers) {
      let ports = usedPorts.get(w.supervisorId);
      if (!ports) usedPorts.set(w.supervisorId, (ports = new Set()));
      ports.add(w.port);
      if (w.gpu) {
        const k = `${w.supervisorId}|${w.gpu.gpuId}`;
        usedGpu.set(k, (usedGpu.get(k) ?? 0) + 1);
        usedGpuMem.set(k, (usedGpuMem.get(k) ?? 0) + workerResources(storm, w, demands).gpuMemoryMB);
      }
    }
  }
  return [...supervisors.values()]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((s) => {
      const used = [...(usedPorts.get(s.id) ?? [])].filter((p) => s.ports.includes(p)).sort((a, b) => a - b);
      return {
        id: s.id,
        host: s.host,
        ports: s.ports,
        usedPorts: used,
        slotsTotal: s.ports.length,
        slotsUsed: used.length,
        memoryMB: s.memoryMB,
        cpus: s.cpus,
        uptimeSecs: Math.max(0, Math.round((now - s.startedAt) / 1000)),
        gpus: s.gpus.map((g) => ({
          id: g.id,
          name: g.name,
          source: g.source,
          declared: g.source === 'declared',
          slots: g.slots,
          usedSlots: usedGpu.get(`${s.id}|${g.id}`) ?? 0,
          usedMemoryMB: usedGpuMem.get(`${s.id}|${g.id}`) ?? 0,
          performance: gpuPerformance(g),
          smCount: g.smCount,
          coresPerSm: g.coresPerSm,
          clockMHz: g.clockMHz,
          memoryMB: g.memoryMB,
          computeCapability: g.computeCapability,
        })),
        ...(s.logServer && { logServer: s.logServer }),
      };
    });
}

/** Used for the occupancy counters of the cluster summary. */
export function usedSlotKeys(assignments: Iterable<Assignment>): Set<string> {
  const keys = new Set<string>();
  for (const a of assignments) for (const w of a.workers) keys.add(workerKey(w));
  return keys;
}
