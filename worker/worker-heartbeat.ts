/**
 * What a worker tells the cluster about itself, on two clocks:
 * - liveness, every `worker.heartbeat.frequency.secs`: the local file its
 *   supervisor judges it by and forwards to nimbus (common/local-heartbeat.ts,
 *   common/worker-beats-report.ts) — a file write, nothing in ZooKeeper;
 * - metrics, every `topology.stats.report.secs`: the WorkerHeartbeat record in
 *   ZooKeeper that nimbus, the UI, describe and the split's capacity policy
 *   read (uptime, memory, dropped frames, load, every executor's metrics),
 *   written compact (deflated JSON) with bounded histograms, so that what
 *   ZooKeeper's log grows by is small and the same after an hour as after a
 *   minute. The first record goes out at start (and a last one at stop).
 */
import type { ClusterState } from '../common/cluster-state.js';
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import type { BackpressureStats, WorkerHeartbeat } from '../common/storm-base.js';
import type { WorkerLaunch } from '../common/worker-env.js';
import { ZkPaths } from '../common/zk-paths.js';
import { writeLocalHeartbeat } from '../common/local-heartbeat.js';
import type { ExecutorMetricsRecorder } from './executor/executor-metrics.js';
import type { WorkerLoad } from './routing/load/worker-load.js';
import { encodeCompactJson, putNode } from '../common/cluster-state/json-node.js';

/** What the record reads of an executor (worker/executor/executor.ts). */
export interface MetricsSource {
  readonly metrics: ExecutorMetricsRecorder;
  readonly queueDepth: number;
  /** Sections, user metrics, errors (Executor.extraMetrics). */
  extraMetrics(): Record<string, unknown> | undefined;
}

/** What a heartbeat reports; the functions are read at each beat. */
export interface HeartbeatSources {
  store: ClusterState;
  launch: WorkerLaunch;
  log: Logger;
  /** Epoch of the assignment the worker follows now. */
  epoch: () => number;
  /** Frames and tuples dropped so far (garbage, oversize, malformed, misdirected). */
  dropped: () => number;
  executors: readonly MetricsSource[];
  load: WorkerLoad | null;
  /** Called after each metrics record ZooKeeper took: a renewal of the worker's lease (fencing/zookeeper-lease.ts). */
  onWritten?: () => void;
  /** Extra fields of the record (fencing figures). */
  extra?: () => Partial<WorkerHeartbeat>;
  /** Per-task backpressure figures (worker/backpressure/); absent where no transport runs (simulated workers). */
  backpressure?: () => BackpressureStats;
}

export class WorkerHeartbeats {
  private beatTimer: NodeJS.Timeout | null = null;
  private metricsTimer: NodeJS.Timeout | null = null;
  /** Set while a record is being written: a period that finds one still going skips (ZooKeeper slow) rather than pile up. */
  private writing: Promise<void> | null = null;
  private readonly startedAt = Date.now();
  private readonly warnLog: RateLimitedLog;
  /** Records written, and writes that failed. */
  readonly writes = { ok: 0, failed: 0 };

  constructor(private readonly src: HeartbeatSources) {
    this.warnLog = new RateLimitedLog(src.log);
  }

  /**
   * Beats locally and writes a first record (awaited), then beats every
   * `beatMs` and writes a record every `metricsMs`, the first of those at a
   * random point of the period: workers started together (a submit, a
   * restarted cluster) would otherwise write in step, every period, in one
   * burst that ZooKeeper queues.
   */
  async start(beatMs: number, metricsMs: number, phase = Math.random()): Promise<void> {
    this.beatLocally();
    await this.write();
    // Its own timer: liveness must not depend on ZooKeeper answering, nor wait for a record being written.
    this.beatTimer = setInterval(() => this.beatLocally(), beatMs);
    const periodic = (): void => {
      if (this.writing) return;
      this.writing = this.write()
        .catch((err: unknown) => this.warnLog.warn({ err }, 'could not write the metrics record; the next period retries'))
        .finally(() => (this.writing = null));
    };
    this.metricsTimer = setTimeout(() => {
      periodic();
      this.metricsTimer = setInterval(periodic, metricsMs);
    }, phase * metricsMs);
  }

  /** Stops the periodic beats and records (a last record can still be written with `write`). */
  stop(): void {
    if (this.beatTimer) clearInterval(this.beatTimer);
    if (this.metricsTimer) clearInterval(this.metricsTimer);
  }

  /** The heartbeat the supervisor judges this worker by and forwards to nimbus (common/local-heartbeat.ts). */
  beatLocally(): void {
    const file = this.src.launch.localHeartbeatFile;
    if (file && !writeLocalHeartbeat(file, Date.now(), process.pid, this.src.epoch())) this.warnLog.warn({ file }, 'could not write the local heartbeat');
  }

  /** Writes the current WorkerHeartbeat (the metrics record) to ZooKeeper, compact. */
  async write(): Promise<void> {
    const { launch } = this.src;
    try {
      await putNode(this.src.store, ZkPaths.workerbeat(launch.topologyId, launch.supervisorId, launch.port), encodeCompactJson(this.record()));
      this.writes.ok++;
    } catch (err) {
      this.writes.failed++;
      throw err;
    }
    this.src.onWritten?.();
  }

  /** The record as of now. */
  record(): WorkerHeartbeat {
    const { launch, load } = this.src;
    const mem = process.memoryUsage();
    return {
      version: 1,
      topologyId: launch.topologyId,
      supervisorId: launch.supervisorId,
      host: launch.host,
      port: launch.port,
      pid: process.pid,
      epoch: this.src.epoch(),
      time: Date.now(),
      uptimeSecs: Math.round((Date.now() - this.startedAt) / 1000),
      rssMB: Math.round(mem.rss / 1048576),
      droppedFrames: this.src.dropped(),
      ...(load ? { routingLoad: load.stats() } : {}),
      ...this.src.extra?.(),
      ...(this.src.backpressure ? { backpressure: this.src.backpressure() } : {}),
      executors: this.src.executors.map((ex) => {
        const m = ex.metrics.snapshot(ex.queueDepth, ex.metrics.rollCapacity());
        const extra = ex.extraMetrics();
        return extra ? { ...m, ...extra } : m;
      }),
    };
  }
}
