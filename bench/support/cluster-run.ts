/**
 * `runLocal` for benchmarks that must see the placement: the same flow (load
 * the module, submit to a LocalCluster, run, deactivate, drain, summarise),
 * plus, read while the topology runs, nimbus's view of the assignment and each
 * worker's own report of the GPU it bound to and the backend that ran its
 * kernels — so a benchmark shows what the runtime did, not what the
 * scheduler was expected to do.
 */
import type { RawConfig } from '../../common/config/index.js';
import { silentLogger } from '../../common/logger.js';
import type { WorkerHeartbeat } from '../../common/storm-base.js';
import { LocalCluster } from '../../cli/local-cluster.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { summarize, type RunSummary } from '../../cli/run-summary.js';
import { toSchedTopology } from '../../nimbus/dry-run.js';
import type { SchedTopology } from '../../nimbus/scheduler/index.js';
import type { TopologyDetail } from '../../nimbus/views.js';
import { loadConfiguredTopology, resolveModulePath } from '../../worker/index.js';

export interface ClusterRunOptions {
  module: string;
  name: string;
  durationSec: number;
  overrides: RawConfig;
  clusterConfig: RawConfig;
  /** Worker slots on the one supervisor; default topology.workers. */
  ports?: number;
  onProgress?: (s: RunSummary, elapsedSec: number) => void;
  drainSec?: number;
}

/** One worker as it reported itself. */
export interface WorkerSeen {
  supervisor: string;
  port: number;
  executors: number;
  /** GPU the worker's GPU bolts bound to (from the backend's own report), or null. */
  gpuId: string | null;
  backend: string | null;
}

export interface ClusterRunResult {
  summary: RunSummary;
  detail: TopologyDetail | null;
  workers: WorkerSeen[];
}

/** The declared-GPU fallback reason names the GPU: `GPU "<id>" (<name>) is declared in config …`. */
function boundGpu(reason: string | null): string | null {
  const m = reason ? /GPU "([^"]+)"/.exec(reason) : null;
  return m ? m[1]! : null;
}

function workersSeen(beats: WorkerHeartbeat[]): WorkerSeen[] {
  return beats.map((b) => {
    const g = b.executors.find((e) => e.gpu)?.gpu;
    return { supervisor: b.supervisorId, port: b.port, executors: b.executors.length, gpuId: g ? boundGpu(g.fallbackReason) ?? g.device : null, backend: g?.backend ?? null };
  });
}

export async function runOnLocalCluster(opts: ClusterRunOptions): Promise<ClusterRunResult> {
  const modulePath = resolveModulePath(opts.module, PACKAGE_ROOT);
  const { def, topologyConfig, config: finalConfig } = await loadConfiguredTopology(modulePath, opts.overrides);
  const workers = (finalConfig['topology.workers'] as number) ?? 1;
  const spouts = new Set(def.components.filter((c) => c.kind === 'spout').map((c) => c.id));
  const cluster = await LocalCluster.start({ log: silentLogger(), clusterConfig: opts.clusterConfig, portsNeeded: opts.ports ?? workers });
  const started = performance.now();
  let timer: NodeJS.Timeout | null = null;
  let detail: TopologyDetail | null = null;
  let seen: WorkerSeen[] = [];
  try {
    const { topologyId } = await cluster.submit(opts.name, modulePath, def, topologyConfig);
    timer = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      void cluster.heartbeats(topologyId).then((beats) => {
        // keep the fullest view: late in a run every worker has reported its GPU
        const now = workersSeen(beats);
        if (now.length >= seen.length) seen = now;
        opts.onProgress?.(summarize(opts.name, beats, elapsed, spouts), elapsed);
      });
    }, 1000);
    await sleep(opts.durationSec * 1000);
    detail = await cluster.topologyDetail(opts.name).catch(() => null);
    const runSec = (performance.now() - started) / 1000;
    clearInterval(timer);
    timer = null;
    await cluster.deactivate(opts.name);
    await sleep((opts.drainSec ?? 3) * 1000);
    await cluster.shutdown();
    const beats = await cluster.heartbeats(topologyId).catch(() => []);
    return { summary: summarize(opts.name, beats, runSec, spouts), detail, workers: seen };
  } finally {
    if (timer) clearInterval(timer);
    await cluster.shutdown();
  }
}

/** The scheduler's view of a topology module under `overrides`, built as nimbus builds it on submit. */
export async function schedTopologyOf(module: string, overrides: RawConfig, id: string): Promise<SchedTopology> {
  const modulePath = resolveModulePath(module, PACKAGE_ROOT);
  const { def, config } = await loadConfiguredTopology(modulePath, overrides);
  return toSchedTopology(id, def, config);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
