/**
 * Runs a topology on a local cluster (real worker processes, real ZeroMQ)
 * and measures its steady state from the workers' heartbeats: acked spout
 * tuples per second, complete latency percentiles of the tuples completed in
 * the window (from histogram differences, not the whole run), how many tuples
 * each task of one component executed in the window, where each task ran,
 * and the workers' load-routing figures (report staleness).
 */
import { silentLogger } from '../../common/logger.js';
import { Histogram, type SparseHistogram } from '../../common/histogram.js';
import type { RoutingLoadStats, WorkerHeartbeat } from '../../common/storm-base.js';
import { LocalCluster } from '../../cli/local-cluster.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { loadConfiguredTopology, resolveModulePath } from '../../worker/index.js';

export interface ShareRunOptions {
  module: string;
  name: string;
  overrides: Record<string, unknown>;
  /** Seconds after the first ack before the window opens. */
  warmSec: number;
  /** Window length, seconds. */
  seconds: number;
  /** Component whose per-task shares are measured. */
  component: string;
}

export interface ShareRunResult {
  throughput: number;
  completeP50Ms: number;
  completeP99Ms: number;
  completeMeanMs: number;
  acked: number;
  failed: number;
  /** Task index within the component → tuples executed in the window. */
  executedByIndex: number[];
  /** Task index → the port of the worker that ran it. */
  portByIndex: number[];
  routingLoad: RoutingLoadStats[];
  /** Spout task → worker port, to tell local from remote targets. */
  spoutPorts: number[];
}

interface Snapshot {
  at: number;
  beats: WorkerHeartbeat[];
}

const BEAT_SECS = 0.5;

export async function runForShares(o: ShareRunOptions): Promise<ShareRunResult> {
  const modulePath = resolveModulePath(o.module, PACKAGE_ROOT);
  const { def, topologyConfig } = await loadConfiguredTopology(modulePath, o.overrides);
  const cluster = await LocalCluster.start({
    log: silentLogger(),
    clusterConfig: { 'nimbus.scheduler': 'even', 'worker.heartbeat.frequency.secs': BEAT_SECS },
    portsNeeded: 2,
  });
  try {
    const { topologyId } = await cluster.submit(o.name, modulePath, def, topologyConfig);
    const snap = async (): Promise<Snapshot> => ({ at: performance.now(), beats: await cluster.heartbeats(topologyId) });
    // Wait for the first acks (workers started, tuples flowing), then warm up.
    const startDeadline = performance.now() + 60_000;
    for (;;) {
      const s = await snap();
      if (acked(s.beats) > 0 && s.beats.length >= 2) break;
      if (performance.now() > startDeadline) throw new Error(`${o.name}: no tuple acked within 60 s`);
      await sleep(200);
    }
    await sleep(o.warmSec * 1000);
    const first = await nextBeats(snap);
    await sleep(o.seconds * 1000);
    const last = await nextBeats(snap);
    await cluster.deactivate(o.name);
    return measure(o.component, first, last);
  } finally {
    await cluster.shutdown();
  }
}

/** A snapshot taken once every worker wrote a beat newer than at the call. */
async function nextBeats(snap: () => Promise<Snapshot>): Promise<Snapshot> {
  const before = await snap();
  const deadline = performance.now() + 10_000;
  for (;;) {
    await sleep(50);
    const s = await snap();
    const fresh = s.beats.length >= before.beats.length && s.beats.every((b) => before.beats.some((p) => p.port === b.port && p.time < b.time));
    if (fresh || performance.now() > deadline) return s;
  }
}

function acked(beats: WorkerHeartbeat[]): number {
  return beats.reduce((n, b) => n + b.executors.reduce((m, e) => m + (e.completeLatencyMs ? e.acked : 0), 0), 0);
}

function measure(component: string, a: Snapshot, b: Snapshot): ShareRunResult {
  const spouts = (s: Snapshot) => s.beats.flatMap((w) => w.executors.filter((e) => e.completeLatencyMs).map((e) => ({ ...e, port: w.port })));
  const before = new Map(spouts(a).map((e) => [e.task, e]));
  const beatAt = new Map(a.beats.map((w) => [w.port, w.time]));
  const hist = new Histogram();
  let ackedN = 0;
  let failedN = 0;
  // Each worker's rate over its own beat times: its counters and its clock go together.
  let rate = 0;
  for (const e of spouts(b)) {
    const p = before.get(e.task);
    const n = e.acked - (p?.acked ?? 0);
    ackedN += n;
    failedN += e.failed - (p?.failed ?? 0);
    const span = ((b.beats.find((w) => w.port === e.port)?.time ?? 0) - (beatAt.get(e.port) ?? 0)) / 1000;
    if (span > 0) rate += n / span;
    hist.mergeSparse(diff(e.completeHist ?? [], p?.completeHist ?? []), (e.completeSum ?? 0) - (p?.completeSum ?? 0), e.completeLatencyMs?.max ?? 0);
  }
  const tasks = (s: Snapshot) => s.beats.flatMap((w) => w.executors.filter((e) => e.component === component).map((e) => ({ task: e.task, executed: e.executed, port: w.port })));
  const order = tasks(b).map((t) => t.task).sort((x, y) => x - y);
  const prev = new Map(tasks(a).map((t) => [t.task, t.executed]));
  const byTask = new Map(tasks(b).map((t) => [t.task, t]));
  const st = hist.stats();
  return {
    throughput: Math.round(rate * 10) / 10,
    completeP50Ms: st.p50,
    completeP99Ms: st.p99,
    completeMeanMs: st.mean,
    acked: ackedN,
    failed: failedN,
    executedByIndex: order.map((t) => byTask.get(t)!.executed - (prev.get(t) ?? 0)),
    portByIndex: order.map((t) => byTask.get(t)!.port),
    routingLoad: b.beats.flatMap((w) => (w.routingLoad ? [w.routingLoad] : [])),
    spoutPorts: spouts(b).map((e) => e.port),
  };
}

function diff(now: SparseHistogram, then: SparseHistogram): SparseHistogram {
  const old = new Map(then);
  return now.map(([k, c]) => [k, c - (old.get(k) ?? 0)] as [number, number]).filter(([, c]) => c > 0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
