/**
 * The supervisor's ephemeral `/supervisors/<id>` node (SupervisorInfo):
 * membership (the node lives as long as the session) and what the node
 * offers. Every `supervisor.heartbeat.frequency.secs` it is compared with what
 * was last written and rewritten only when something in it changed (the node
 * collector's figures, a worker's death) — being there is the heartbeat;
 * rewriting an unchanged node every second only grew ZooKeeper's transaction
 * log (1 000 supervisors: 1 000 writes a second). After a reconnect it is
 * written whatever it says, so `heartbeatAt` shows the session works. When it is missing —
 * the session expired and the store could not restore it, or someone deleted
 * it — the next beat creates it again. A node with our id left by a previous
 * process (its session not yet expired) is replaced at start: it would vanish
 * with that session and make nimbus think we left.
 */
import { cpus, freemem, totalmem } from 'node:os';
import { isStateError, type ClusterState } from '../common/cluster-state.js';
import { encodeJson } from '../common/cluster-state/json-node.js';
import type { Logger } from '../common/logger.js';
import type { GpuInfo, NodeStats, SupervisorInfo, WorkerExitReport } from '../common/resources.js';
import { ZkPaths } from '../common/zk-paths.js';

export class SupervisorRegistration {
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | null = null;
  /** What the node said at its last write, `heartbeatAt` left out. */
  private written: string | null = null;
  /** Writes done and periods that found nothing new (for tests and the scale benchmark). */
  readonly counts = { writes: 0, unchanged: 0 };

  constructor(
    private readonly state: ClusterState,
    private readonly info: {
      id: string;
      host: string;
      ports: number[];
      gpus: GpuInfo[];
      cpuCores: number | null;
      memoryMB: number | null;
      logServer?: { host: string; port: number } | null;
    },
    private readonly heartbeatMs: number,
    private readonly log: Logger,
    /** The node collector's latest round, sent with every beat. */
    private readonly nodeStats: () => NodeStats | null = () => null,
    /** Deaths of this supervisor's workers, sent with every beat. */
    private readonly workerExits: () => WorkerExitReport[] = () => [],
  ) {}

  current(): SupervisorInfo {
    const node = this.nodeStats();
    const exits = this.workerExits();
    return {
      id: this.info.id,
      host: this.info.host,
      ports: this.info.ports,
      // What HDRF may hand out here: configured, else the whole machine.
      memoryMB: this.info.memoryMB ?? Math.round(totalmem() / 2 ** 20),
      cpus: this.info.cpuCores ?? cpus().length,
      gpus: this.info.gpus,
      startedAt: this.startedAt,
      heartbeatAt: Date.now(),
      ...(node && { node }),
      ...(exits.length > 0 && { workerExits: exits }),
      ...(this.info.logServer && { logServer: this.info.logServer }),
      version: 1,
    };
  }

  async start(): Promise<void> {
    const path = ZkPaths.supervisor(this.info.id);
    const info = this.current();
    try {
      await this.state.create(path, encodeJson(info), { mode: 'ephemeral', parents: true });
    } catch (err) {
      if (!isStateError(err, 'NODE_EXISTS')) throw err;
      this.log.warn('replacing a supervisor node with our id left by an earlier process');
      await this.state.delete(path).catch(() => undefined);
      await this.state.create(path, encodeJson(info), { mode: 'ephemeral', parents: true });
    }
    this.noteWritten(info);
    this.log.info({ ports: this.info.ports, gpus: this.info.gpus.length, freeMB: Math.round(freemem() / 2 ** 20) }, 'supervisor registered');
    this.timer = setInterval(() => {
      this.beat({ onlyIfChanged: true }).catch((err: unknown) => this.log.warn({ err }, 'supervisor heartbeat failed; retrying'));
    }, this.heartbeatMs);
  }

  /** Writes the node (re-creating it when it is gone); with `onlyIfChanged`, only when it would say something new. */
  async beat(opts: { onlyIfChanged?: boolean } = {}): Promise<void> {
    const path = ZkPaths.supervisor(this.info.id);
    const info = this.current();
    if (opts.onlyIfChanged && this.written === withoutBeatTime(info)) {
      this.counts.unchanged++;
      return;
    }
    try {
      await this.state.set(path, encodeJson(info));
    } catch (err) {
      if (!isStateError(err, 'NO_NODE')) throw err;
      this.log.warn('supervisor node was gone; registering again');
      await this.state.create(path, encodeJson(info), { mode: 'ephemeral', parents: true }).catch((e: unknown) => {
        if (!isStateError(e, 'NODE_EXISTS')) throw e;
      });
    }
    this.noteWritten(info);
  }

  private noteWritten(info: SupervisorInfo): void {
    this.written = withoutBeatTime(info);
    this.counts.writes++;
  }

  /** Stops beating and removes the node, so nimbus learns at once that we left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.state.delete(ZkPaths.supervisor(this.info.id)).catch(() => undefined);
  }
}

/** The node's content as compared between beats: everything but the time of the beat itself. */
function withoutBeatTime(info: SupervisorInfo): string {
  return JSON.stringify({ ...info, heartbeatAt: 0 });
}
