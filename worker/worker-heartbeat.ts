/**
 * The worker's heartbeats: the local file its supervisor judges it by
 * (common/local-heartbeat.ts; written first, so that view never depends on
 * ZooKeeper answering) and the WorkerHeartbeat record in ZooKeeper that
 * nimbus and the UI read (uptime, memory, dropped frames, load, every
 * executor's metrics).
 */
import type { ClusterState } from '../common/cluster-state.js';
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import type { BackpressureStats, WorkerHeartbeat } from '../common/storm-base.js';
import type { WorkerLaunch } from '../common/worker-env.js';
import { ZkPaths } from '../common/zk-paths.js';
import { writeLocalHeartbeat } from '../common/local-heartbeat.js';
import type { Executor } from './executor/executor.js';
import type { WorkerLoad } from './routing/load/worker-load.js';
import { putJson } from '../common/cluster-state/json-node.js';

/** What a heartbeat reports; the functions are read at each beat. */
export interface HeartbeatSources {
  store: ClusterState;
  launch: WorkerLaunch;
  log: Logger;
  /** Epoch of the assignment the worker follows now. */
  epoch: () => number;
  /** Frames and tuples dropped so far (garbage, oversize, malformed, misdirected). */
  dropped: () => number;
  executors: readonly Executor[];
  load: WorkerLoad | null;
  backpressure: () => BackpressureStats;
}

export class WorkerHeartbeats {
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAt = Date.now();
  private readonly warnLog: RateLimitedLog;

  constructor(private readonly src: HeartbeatSources) {
    this.warnLog = new RateLimitedLog(src.log);
  }

  /** Beats once (locally, then in ZooKeeper, awaited) and then every `intervalMs`. */
  async start(intervalMs: number): Promise<void> {
    this.beatLocally();
    await this.write();
    this.timer = setInterval(() => {
      // Local first: the supervisor's view of this worker must not depend on ZooKeeper answering.
      this.beatLocally();
      void this.write().catch((err: unknown) => this.src.log.warn({ err }, 'heartbeat failed'));
    }, intervalMs);
  }

  /** Stops the periodic beats (a last one can still be written with `write`). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The heartbeat the supervisor judges this worker by (common/local-heartbeat.ts). */
  beatLocally(): void {
    const file = this.src.launch.localHeartbeatFile;
    if (file && !writeLocalHeartbeat(file)) this.warnLog.warn({ file }, 'could not write the local heartbeat');
  }

  /** Writes the current WorkerHeartbeat to ZooKeeper. */
  async write(): Promise<void> {
    const { launch } = this.src;
    await putJson(this.src.store, ZkPaths.workerbeat(launch.topologyId, launch.supervisorId, launch.port), this.record());
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
      backpressure: this.src.backpressure(),
      executors: this.src.executors.map((ex) => {
        const m = ex.metrics.snapshot(ex.queueDepth, ex.metrics.rollCapacity());
        const extra = (ex as { extraMetrics?: () => object }).extraMetrics?.();
        return extra ? { ...m, ...extra } : m;
      }),
    };
  }
}
