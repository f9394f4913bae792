/**
 * `hstorm local` as a function: start a LocalCluster, submit the module, let
 * it run, drain, and return the summary. Tests and benchmarks call this; the
 * command adds flags and printing.
 */
import { loadConfiguredTopology } from '../worker/index.js';
import { packageRoot } from '../common/package-root.js';
import type { FluxOptions } from '../flux/index.js';
import { openTopologySource, type TopologySource } from './topology-source.js';
import { secsToMs, type RawConfig } from '../common/config/index.js';
import { silentLogger, type Logger } from '../common/logger.js';
import type { WorkerHeartbeat } from '../common/storm-base.js';
import { join } from 'node:path';
import { LocalCluster } from './local-cluster.js';
import { summarize, type RunSummary } from './run-summary.js';
import { crashLoopOf } from './crash-loop.js';
import { WorkerHistory } from './worker-history.js';
import { WorkerLogTail, type WorkerLogLine } from './worker-log-tail.js';
import { isTypeScript } from '../common/ts-module.js';
import { typeCheckModule, type TypeCheckResult } from './type-check.js';

export const PACKAGE_ROOT = packageRoot();

export interface LocalRunOptions {
  /** A topology module, or a Flux file (.yaml). */
  module: string;
  /** Variables of a Flux file (--filter, --env-filter). */
  flux?: FluxOptions;
  /** `module` already opened (the command does, to print a Flux file's warnings first). */
  source?: TopologySource;
  name?: string;
  durationSec: number;
  /** Topology config overrides (`-c`), user keys allowed. */
  overrides: RawConfig;
  /** Cluster config for the embedded nimbus/supervisor (e.g. nimbus.scheduler). */
  clusterConfig?: RawConfig;
  log?: Logger;
  /** Called about once a second with the live summary. */
  onProgress?: (s: RunSummary, elapsedSec: number) => void;
  /** Longest wait for in-flight tuples after the spouts stop. */
  drainSec?: number;
  /**
   * Deactivate as soon as this returns true for the live summary (checked about once a second), durationSec being
   * then only the longest run: a test runs until it has seen enough rather than for a time a busy machine may not fill.
   */
  until?: (s: RunSummary, elapsedSec: number) => boolean;
  /** Every warning and error line the workers log, as it is written (the command prints them, rate-limited). */
  onWorkerLog?: (line: WorkerLogLine) => void;
  /**
   * Copy the worker logs into this directory when the run ends (`hstorm local --keep-logs DIR`), also when it threw.
   * The run's own directory is a temp dir, always removed: no run leaves one behind, passed or failed.
   */
  keepLogsIn?: string;
  /** Ends the run early, as when its duration ran out (`hstorm local` on the first Ctrl-C): it drains and shuts down as usual. */
  signal?: AbortSignal;
  /**
   * Type-check a TypeScript module while the cluster starts (cli/type-check.ts), and hand the result here as soon as
   * it is known (also when the run then fails); default off (tests and benchmarks run compiled modules).
   */
  onTypeCheck?: (result: TypeCheckResult) => void;
}

export async function runLocal(opts: LocalRunOptions): Promise<RunSummary> {
  const source = opts.source ?? (await openTopologySource(opts.module, opts.flux));
  const onTypeCheck = opts.onTypeCheck;
  const typeCheck = onTypeCheck && isTypeScript(source.modulePath) ? typeCheckModule(source.modulePath).then((r) => (onTypeCheck(r), r)) : null;
  try {
    const summary = await runChecked(opts, source);
    const checked = await typeCheck;
    if (checked) summary.typeCheck = checked;
    return summary;
  } catch (err) {
    // The type errors may well say why it failed: they are reported before the error.
    await typeCheck;
    throw err;
  }
}

async function runChecked(opts: LocalRunOptions, source: TopologySource): Promise<RunSummary> {
  // For TypeScript, `loaded` is the compiled file: the workers load that, not the source.
  const { def, topologyConfig, config: finalConfig, modulePath: loaded } = await loadConfiguredTopology(source.modulePath, opts.overrides);
  const name = opts.name ?? source.defaultName;
  const workers = finalConfig['topology.workers'];
  const spouts = new Set(def.components.filter((c) => c.kind === 'spout').map((c) => c.id));
  const componentIds = def.components.map((c) => c.id);
  const cluster = await LocalCluster.start({
    log: opts.log ?? silentLogger(),
    clusterConfig: opts.clusterConfig ?? {},
    portsNeeded: workers,
    ...(opts.keepLogsIn && { keepLogsIn: opts.keepLogsIn }),
  });
  const tail = new WorkerLogTail(join(cluster.dataDir, 'logs'), (l) => opts.onWorkerLog?.(l));
  tail.start();
  const started = performance.now();
  let timer: NodeJS.Timeout | null = null;
  let summary: RunSummary | null = null;
  try {
    const { topologyId } = await cluster.submit(name, loaded, def, topologyConfig);
    // Every heartbeat read goes through the history, so a worker restarted after a crash keeps its earlier counts.
    const history = new WorkerHistory();
    const latest = async (): Promise<WorkerHeartbeat[]> => {
      history.observe(await cluster.heartbeats(topologyId));
      return history.running();
    };
    const summaryNow = async (elapsed: number): Promise<RunSummary> => summarize(name, await latest(), elapsed, spouts, componentIds, history.departed());
    if (opts.onProgress) {
      timer = setInterval(() => {
        const elapsed = (performance.now() - started) / 1000;
        void summaryNow(elapsed).then((s) => opts.onProgress?.(s, elapsed));
      }, 1000);
    }
    // About once a second: stop at a worker that keeps dying at start (crash-loop.ts), and at the caller's condition.
    const deadline = started + opts.durationSec * 1000;
    while (performance.now() < deadline && !opts.signal?.aborted) {
      await sleep(Math.min(1000, Math.max(0, deadline - performance.now())), opts.signal);
      const detail = await cluster.topologyDetail(name);
      history.noteExits(detail);
      const looping = crashLoopOf(detail);
      if (looping) throw looping;
      const elapsed = (performance.now() - started) / 1000;
      const live = await summaryNow(elapsed);
      if (opts.until?.(live, elapsed)) break;
    }
    const runSec = (performance.now() - started) / 1000;
    history.noteExits(await cluster.topologyDetail(name));
    await cluster.deactivate(name);
    await waitDrained(latest, (opts.drainSec ?? 5) * 1000, secsToMs(cluster.config['worker.heartbeat.frequency.secs']));
    await cluster.shutdown();
    history.observe(await latestOrEmpty(cluster, topologyId));
    summary = summarize(name, history.running(), runSec, spouts, componentIds, history.departed());
    const crashes = history.workerCrashes();
    if (crashes.length > 0) summary.crashes = crashes;
    return summary;
  } finally {
    if (timer) clearInterval(timer);
    // Removes the run's temp dir, after copying the worker logs out when asked.
    await cluster.shutdown();
    await tail.stop();
    if (summary) {
      summary.workerLog = { warnings: tail.counts.warn, errors: tail.counts.error };
      if (opts.keepLogsIn) summary.logsDir = opts.keepLogsIn;
    }
  }
}

async function latestOrEmpty(cluster: LocalCluster, topologyId: string): Promise<WorkerHeartbeat[]> {
  return cluster.heartbeats(topologyId).catch(() => []);
}

/**
 * Waits until the topology is quiet — every queue empty and no executor made
 * progress between two heartbeats — or the deadline. Polls slower than the
 * heartbeat period, so two polls never read the same beat.
 */
async function waitDrained(latest: () => Promise<WorkerHeartbeat[]>, maxMs: number, beatMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  let last = -1;
  while (Date.now() < until) {
    await sleep(beatMs * 1.2);
    const beats = await latest();
    const progress = beats.reduce((s, b) => s + b.executors.reduce((t, e) => t + e.executed + e.acked + e.failed + e.emitted, 0), 0);
    const queued = beats.reduce((s, b) => s + b.executors.reduce((t, e) => t + e.queueDepth, 0), 0);
    // No heartbeat yet is not quiet: on a loaded machine a short run may end before its workers have started.
    if (beats.length > 0 && progress === last && queued === 0) return;
    last = progress;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
