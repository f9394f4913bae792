/**
 * One worker process of one topology, and its lifecycle: start (bind the
 * port, build and start the executors, heartbeat), follow assignment and
 * status changes in ZooKeeper, and stop (drain, close components). The parts
 * it drives live beside it: task-wiring.ts (tasks, executors, transfer, transport),
 * run-loop.ts, context/topology-context-factory.ts and worker-heartbeat.ts.
 */
import { isStateError, type ClusterState } from '../common/cluster-state.js';
import { assignmentSchema, stormBaseSchema } from '../common/record-schemas.js';
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import { LogLevelControl } from './log-level-control.js';
import type { TopologyDef } from '../common/topology-def.js';
import type { Assignment, WorkerAssignment } from '../common/assignment.js';
import { workerKey } from '../common/assignment.js';
import type { StormBase } from '../common/storm-base.js';
import type { WorkerLaunch } from '../common/worker-env.js';
import { ZkPaths } from '../common/zk-paths.js';
import type { StormTopology } from '../topology-sdk/topology-builder.js';
import type { Executor } from './executor/executor.js';
import { SpoutExecutor } from './executor/spout-executor.js';
import type { LinkSecurity } from './transport/link-security.js';
import { SignalHub } from './context/signal-hub.js';
import { readJsonIfPresent } from '../common/cluster-state/json-node.js';
import { workerSettings, type WorkerSettings } from './worker-settings.js';
import { TaskWiring } from './task-wiring.js';
import { TopologyContextFactory } from './context/topology-context-factory.js';
import { ComponentStartError, WorkerNotAssignedError } from './errors.js';
import { WorkerHeartbeats } from './worker-heartbeat.js';
import { ZooKeeperLease } from './fencing/zookeeper-lease.js';

export interface WorkerOptions {
  launch: WorkerLaunch;
  store: ClusterState;
  log: Logger;
  stormBase: StormBase;
  assignment: Assignment;
  topology: StormTopology;
  /**
   * Called when this worker's slot left the assignment (or the topology is
   * gone). Normally its supervisor stops it first; this covers a supervisor
   * that died with -9 and left its workers behind.
   */
  onRetired?: (why: string) => void;
  /** Where the slot socket listens and whether links use CURVE (worker/transport/link-security.ts); default 127.0.0.1, plain. */
  link?: LinkSecurity;
}

export class Worker {
  readonly topologyId: string;
  readonly log: Logger;
  readonly def: TopologyDef;
  private readonly store: ClusterState;
  private readonly launch: WorkerLaunch;
  private base: StormBase;
  private assignment: Assignment;
  private readonly selfKey: string;
  /** Executors, routing and transport: the ExecutorHost. */
  private readonly tasks: TaskWiring;
  private readonly heartbeats: WorkerHeartbeats;
  readonly signals: SignalHub;
  /** `hstorm set-log-level`: the topology-wide level from the StormBase, with its timeout. */
  private readonly logLevel: LogLevelControl;
  /** Assignment or topology znodes read that were malformed (and skipped). */
  corruptZnodes = 0;
  private readonly corruptLog: RateLimitedLog;
  /** Config compiled once (worker-settings.ts). */
  readonly settings: WorkerSettings;
  private stopping = false;
  /** Pauses the spouts when ZooKeeper has been out of reach too long (fencing/zookeeper-lease.ts). */
  private readonly lease: ZooKeeperLease;
  private leaseTimer: NodeJS.Timeout | null = null;
  /** The store's session is up: the lease is renewed on each check while it is (records are written only every topology.stats.report.secs). */
  private zooKeeperConnected = true;
  private stopSessionWatch: (() => void) | null = null;
  private readonly contexts: TopologyContextFactory;

  constructor(private readonly opts: WorkerOptions) {
    this.launch = opts.launch;
    this.store = opts.store;
    this.base = opts.stormBase;
    this.assignment = opts.assignment;
    this.topologyId = opts.launch.topologyId;
    this.def = opts.stormBase.def;
    this.selfKey = workerKey({ supervisorId: opts.launch.supervisorId, port: opts.launch.port });
    this.log = opts.log.child({ worker: this.selfKey });
    this.settings = workerSettings(opts.stormBase.config, opts.launch.clusterConfig);
    this.corruptLog = new RateLimitedLog(this.log);
    this.logLevel = new LogLevelControl(this.log);
    this.logLevel.apply(this.base.logLevel);
    this.signals = new SignalHub(this.store, this.topologyId, this.log);
    const contexts = new TopologyContextFactory({
      topologyId: this.topologyId,
      def: this.def,
      launch: this.launch,
      log: this.log,
      store: this.store,
      signals: this.signals,
      gpuCpuThreads: this.settings.gpuCpuThreads,
      topologyName: () => this.base.name,
      assigned: () => this.myAssignment(this.assignment),
      tasksOf: (c) => this.tasks.tasksOf(c),
      placementOf: (c) => this.tasks.placementOf(c),
      onPlacementChange: (listener) => this.tasks.onPlacementChange(listener),
      executorOf: (t) => this.tasks.executorOf(t),
      settingsOf: (c) => this.tasks.components.settingsOf(c),
      stateStore: this.settings.state,
    });
    this.contexts = contexts;
    this.tasks = new TaskWiring({
      launch: this.launch,
      log: this.log,
      def: this.def,
      topology: opts.topology,
      selfKey: this.selfKey,
      settings: this.settings,
      config: this.base.config,
      currentConfig: () => this.base.config,
      link: opts.link,
      contextFor: (component, task) => contexts.contextFor(component, task),
    });
    this.lease = new ZooKeeperLease(this.settings.zooKeeperLeaseMs);
    this.heartbeats = new WorkerHeartbeats({
      onWritten: () => this.lease.contact(),
      extra: () => ({ staleFrames: this.tasks.staleFrames, staleTuples: this.tasks.staleTuples.dropped, spoutsPaused: this.lease.paused }),
      store: this.store,
      launch: this.launch,
      log: this.log,
      epoch: () => this.assignment.epoch,
      dropped: () => this.tasks.droppedFrames + this.tasks.droppedTuples,
      executors: this.tasks.executorList,
      load: this.tasks.load,
      backpressure: () => this.tasks.backpressureStats(),
    });
    this.applyAssignment(this.assignment);
  }

  /** Frames dropped whole (not msgpack, wrong shape, over the size limit). */
  get droppedFrames(): number {
    return this.tasks.droppedFrames;
  }

  /** Tuples dropped (malformed, for an unknown task or stream, no worker holds the destination). */
  get droppedTuples(): number {
    return this.tasks.droppedTuples;
  }

  // ── lifecycle ──────────────────────────────────────────────────────────────

  async start(): Promise<void> {
    const mine = this.myAssignment(this.assignment);
    if (!mine) throw new WorkerNotAssignedError(`worker ${this.selfKey} is not in the assignment of ${this.topologyId}`, this.topologyId);
    await this.tasks.transport.bind();
    this.tasks.buildExecutors(mine);
    // Bolts and ackers first, so that a spout's first tuples find their targets ready.
    for (const ex of this.tasks.executorList) if (!(ex instanceof SpoutExecutor)) await startNaming(ex);
    for (const ex of this.tasks.spouts) await startNaming(ex);
    this.tasks.startLoadReports();
    this.tasks.startBackpressure();
    this.applyStatus(this.base.status);
    await this.heartbeats.start(this.settings.heartbeatMs, this.settings.metricsMs);
    this.stopSessionWatch = this.store.onSessionState((state) => (this.zooKeeperConnected = state === 'connected'));
    this.leaseTimer = setInterval(() => this.checkLease(), Math.min(1000, this.settings.heartbeatMs));
    this.leaseTimer.unref();
    void this.watchAssignment();
    void this.watchStormBase();
    this.log.info({ executors: mine.executors.length, port: this.launch.port, gpu: mine.gpu }, 'worker started');
  }

  /** Stops taking new spout tuples, lets in-flight ones finish (up to `drainMs`), closes components. */
  async stop(drainMs = 2000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const spouts = this.tasks.spouts;
    for (const s of spouts) s.deactivate();
    // Drain while it makes progress: tuples routed through a dead peer will never complete, so don't wait out the whole budget for them.
    const until = Date.now() + drainMs;
    const completed = () => spouts.reduce((n, s) => n + s.metrics.acked + s.metrics.failed, 0);
    let last = completed();
    let lastProgress = Date.now();
    while (Date.now() < until && Date.now() - lastProgress < 300 && spouts.some((s) => s.pendingCount > 0)) {
      await sleep(20);
      const now = completed();
      if (now !== last) [last, lastProgress] = [now, Date.now()];
    }
    await this.tasks.transport.drain(Math.max(0, until - Date.now()));
    this.heartbeats.stop();
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.stopSessionWatch?.();
    this.tasks.load?.stop();
    this.tasks.stopBackpressure();
    for (const ex of this.tasks.executorList) {
      try {
        await ex.stop();
      } catch (err) {
        this.log.warn({ err, task: ex.task }, 'component close threw');
      }
      ex.flushLogs();
    }
    this.signals.close();
    await this.contexts.close().catch((err: unknown) => this.log.warn({ err }, 'closing the state store failed'));
    await this.heartbeats.write().catch(() => undefined);
    await this.tasks.transport.close();
    this.log.info('worker stopped');
  }

  /** The executor of a task in this worker (tests and the GPU/split extensions). */
  executorOf(task: number): Executor | undefined {
    return this.tasks.executorOf(task);
  }

  // ── assignment and status ─────────────────────────────────────────────────

  private myAssignment(a: Assignment): WorkerAssignment | undefined {
    return a.workers.find((w) => workerKey(w) === this.selfKey);
  }

  private applyAssignment(a: Assignment): void {
    this.tasks.applyAssignment(a);
    this.assignment = a;
  }

  private applyStatus(status: StormBase['status']): void {
    for (const s of this.tasks.spouts) {
      if (status === 'active' && !this.stopping && !this.lease.paused) s.activate();
      else s.deactivate();
    }
  }

  private async watchAssignment(): Promise<void> {
    const path = ZkPaths.assignment(this.topologyId);
    try {
      const a = await readJsonIfPresent(this.store, path, assignmentSchema, () => void this.watchAssignment());
      this.sawAssignment(a);
    } catch (err) {
      if (this.skipCorrupt(err, path)) return;
      this.log.warn({ err }, 'reading the assignment failed; retrying');
      setTimeout(() => void this.watchAssignment(), 1000).unref();
    }
  }

  /** What the assignment just read means: retire, follow a new one, or resume spouts paused by the lease. */
  private sawAssignment(a: Assignment | null): void {
    if (!a) {
      this.opts.onRetired?.('the topology has no assignment any more');
      return;
    }
    if (a.epoch !== this.assignment.epoch) {
      this.log.info({ epoch: a.epoch }, 'assignment changed');
      this.applyAssignment(a);
    }
    const mine = this.myAssignment(a) !== undefined;
    if (!mine) this.opts.onRetired?.('this slot is no longer assigned');
    if (this.lease.sawAssignment(mine) === 'resume') {
      this.log.warn({ epoch: a.epoch }, 'ZooKeeper reached and this worker is still assigned: spouts resume emitting');
      this.applyStatus(this.base.status);
    }
  }

  /**
   * Pauses the spouts once ZooKeeper has been out of reach for nimbus.task.timeout.secs (fencing/zookeeper-lease.ts),
   * then reads the assignment every second until it answers: the watch may have been lost with the session, and a
   * paused worker must not wait for a change that may never come.
   */
  private checkLease(): void {
    // A connected session answers the client's pings: ZooKeeper is in reach, whether or not a record was due.
    if (this.zooKeeperConnected) this.lease.contact();
    if (this.stopping || this.lease.check() !== 'pause') return;
    this.log.warn(
      { silenceMs: this.lease.silenceMs, timeoutMs: this.lease.timeoutMs },
      'ZooKeeper out of reach for longer than nimbus.task.timeout.secs: spouts stop emitting until this worker reads its assignment again (its executors may run elsewhere now)',
    );
    this.applyStatus(this.base.status);
    void this.pollAssignmentWhilePaused();
  }

  private async pollAssignmentWhilePaused(): Promise<void> {
    while (this.lease.paused && !this.stopping) {
      try {
        this.sawAssignment(await readJsonIfPresent(this.store, ZkPaths.assignment(this.topologyId), assignmentSchema));
      } catch (err) {
        if (!isStateError(err, 'CORRUPT')) this.corruptLog.warn({ err: (err as Error).message }, 'paused: the assignment is still out of reach');
      }
      if (this.lease.paused) await sleep(1000);
    }
  }

  /**
   * A znode that is not JSON or not the record it should be is counted, logged
   * (rate-limited) and skipped: the worker keeps what it had, and the watch set
   * before the read brings the node's next version. True when `err` was that.
   */
  private skipCorrupt(err: unknown, path: string): boolean {
    if (!isStateError(err, 'CORRUPT')) return false;
    this.corruptZnodes++;
    this.corruptLog.warn({ path, corruptZnodes: this.corruptZnodes, err: (err as Error).message }, 'skipped a malformed znode; keeping the last good one');
    return true;
  }

  private async watchStormBase(): Promise<void> {
    const path = ZkPaths.storm(this.topologyId);
    try {
      const b = await readJsonIfPresent(this.store, path, stormBaseSchema, () => void this.watchStormBase());
      if (!b) return;
      // The level first: a change logged below is logged (or not) at the level just set.
      this.logLevel.apply(b.logLevel);
      if (b.status !== this.base.status) this.log.info({ status: b.status }, 'topology status changed');
      this.base = b;
      this.applyStatus(b.status);
    } catch (err) {
      if (this.skipCorrupt(err, path)) return;
      this.log.warn({ err }, 'reading the topology failed; retrying');
      setTimeout(() => void this.watchStormBase(), 1000).unref();
    }
  }
}

/** Starts an executor; a throw from the component's open/prepare names the component and task (the log, then `describe`, say which). */
async function startNaming(ex: Executor): Promise<void> {
  try {
    await ex.start();
  } catch (err) {
    throw new ComponentStartError(ex.component, ex.task, err);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
