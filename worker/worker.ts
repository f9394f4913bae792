/**
 * One worker process of one topology: hosts the executors of its assignment,
 * routes tuples (in memory inside the process, over ZeroMQ to other
 * workers), drives executors from a single run loop, applies backpressure,
 * follows assignment and status changes, and heartbeats its metrics.
 */
import { dirname } from 'node:path';
import { isStateError, type ClusterState } from '../common/cluster-state.js';
import { EmitError } from '../common/errors.js';
import { assignmentSchema, stormBaseSchema } from '../common/record-schemas.js';
import type { Logger } from '../common/logger.js';
import { RateLimitedLog } from '../common/logger.js';
import { LogLevelControl } from './log-level-control.js';
import { ACKER_COMPONENT, computeTasks, type TopologyDef } from '../common/topology-def.js';
import type { Assignment, WorkerAssignment } from '../common/assignment.js';
import { workerKey } from '../common/assignment.js';
import type { StormBase, WorkerHeartbeat } from '../common/storm-base.js';
import { isWireTuple, type WireBatch } from '../common/wire-codec.js';
import type { WorkerLaunch } from '../common/worker-env.js';
import { ZkPaths } from '../common/zk-paths.js';
import { Fields } from '../topology-sdk/fields.js';
import { Tuple } from '../topology-sdk/tuple.js';
import { Spout } from '../topology-sdk/components.js';
import type { StormTopology } from '../topology-sdk/topology-builder.js';
import type { TopologyContext } from '../topology-sdk/context.js';
import type { Executor } from './executor/executor.js';
import type { ExecutorHost } from './executor/executor-host.js';
import { SpoutExecutor } from './executor/spout-executor.js';
import { BoltExecutor } from './executor/bolt-executor.js';
import { AckerExecutor } from './executor/acker-executor.js';
import { SYSTEM_FIELDS, isSystemStream } from './executor/system-streams.js';
import { idBucket } from './ack-ids.js';
import type { LinkSecurity } from './transport/link-security.js';
import { ZmqTransport } from './transport/zmq-transport.js';
import { SignalHub } from './signal-hub.js';
import { readJsonNode, writeJsonNode } from './state-json.js';
import { WorkerGpuBackends, type ForcedBackend } from './gpu-backend.js';
import { readComponentLoad } from './component-load.js';
import { userMetricsOf } from './user-metrics-api.js';
import { WorkerLoad } from './load/worker-load.js';
import { LOAD_STREAM } from './load/load-message.js';
import type { RoutingLoad } from './load/task-load.js';
import { writeLocalHeartbeat } from '../common/local-heartbeat.js';
import { workerSettings, type WorkerSettings } from './worker-settings.js';

/** Longest a single executor runs before the loop moves on (keeps timers, I/O and heartbeats fed). */
const SLICE_MS = 2;

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

export class Worker implements ExecutorHost {
  readonly topologyId: string;
  readonly log: Logger;
  readonly def: TopologyDef;
  private readonly store: ClusterState;
  private readonly launch: WorkerLaunch;
  private base: StormBase;
  private assignment: Assignment;
  private readonly selfKey: string;
  private readonly componentTasks = new Map<string, number[]>();
  private readonly taskComponent = new Map<number, string>();
  private taskWorker = new Map<number, string>();
  private readonly executors = new Map<number, Executor>();
  private readonly executorList: Executor[] = [];
  private readonly spouts: SpoutExecutor[] = [];
  private readonly ackerTasks: number[];
  /** component → stream → Fields (nested maps: no key string built per tuple). */
  private readonly fields = new Map<string, Map<string, Fields>>();
  private readonly componentConfig = new Map<string, Readonly<Record<string, unknown>>>();
  private readonly transport: ZmqTransport;
  readonly signals: SignalHub;
  private readonly transferLimit: number;
  private scheduled = false;
  private receiveWaiter: { resolve: () => void; tasks: Executor[] } | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private readonly startedAt = Date.now();
  private readonly dropLog: RateLimitedLog;
  /** `hstorm set-log-level`: the topology-wide level from the StormBase, with its timeout. */
  private readonly logLevel: LogLevelControl;
  droppedFrames = 0;
  droppedTuples = 0;
  /** Assignment or topology znodes read that were malformed (and skipped). */
  corruptZnodes = 0;
  private readonly corruptLog: RateLimitedLog;
  /** Config compiled once (worker-settings.ts). */
  readonly settings: WorkerSettings;
  private stopping = false;
  /** Created by the first GPU bolt task that asks; probes once per process. */
  private gpuBackends: WorkerGpuBackends | null = null;
  /** Load figures for twoChoice / loadAwareShuffle groupings; null when the topology has none. */
  private readonly load: WorkerLoad | null;

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
    this.dropLog = new RateLimitedLog(this.log);
    this.corruptLog = new RateLimitedLog(this.log);
    this.logLevel = new LogLevelControl(this.log);
    this.logLevel.apply(this.base.logLevel);
    const conf = this.base.config;
    for (const t of computeTasks(this.def, this.settings.ackers)) {
      this.taskComponent.set(t.task, t.component);
      const list = this.componentTasks.get(t.component) ?? [];
      list.push(t.task);
      this.componentTasks.set(t.component, list);
    }
    this.ackerTasks = this.componentTasks.get(ACKER_COMPONENT) ?? [];
    for (const c of this.def.components) {
      this.fields.set(c.id, new Map(c.streams.map((s) => [s.id, new Fields(s.fields)])));
      this.componentConfig.set(c.id, Object.freeze({ ...conf, ...c.config }));
    }
    this.componentConfig.set(ACKER_COMPONENT, Object.freeze({ ...conf }));
    this.transferLimit = this.settings.transferBufferSize;
    this.transport = new ZmqTransport(
      {
        port: this.launch.port,
        ...opts.link,
        batchSize: this.settings.transferBatchSize,
        flushIntervalMs: this.settings.flushIntervalMs,
        highWaterMark: 64,
        maxFrameBytes: this.settings.maxFrameBytes,
      },
      {
        onBatch: (b) => this.onBatch(b),
        onGarbage: () => {
          this.droppedFrames++;
        },
        onDrain: () => this.wake(),
        onOversize: (n) => {
          this.droppedTuples += n;
        },
      },
      this.log,
    );
    this.signals = new SignalHub(this.store, this.topologyId, this.log);
    this.load = WorkerLoad.forTopology(this.def, conf);
    this.applyAssignment(this.assignment);
  }

  // ── lifecycle ──────────────────────────────────────────────────────────────

  async start(): Promise<void> {
    const mine = this.myAssignment(this.assignment);
    if (!mine) throw new Error(`worker ${this.selfKey} is not in the assignment of ${this.topologyId}`);
    await this.transport.bind();
    for (const { component, task } of mine.executors) {
      const ex = this.createExecutor(component, task);
      this.executors.set(task, ex);
      this.executorList.push(ex);
      if (ex instanceof SpoutExecutor) this.spouts.push(ex);
      this.load?.watch(component, task, {
        backlog: () => ex.queue.length + ex.inService,
        capacity: ex.queue.capacity,
        executed: () => ex.metrics.executed,
        busyMs: () => ex.metrics.totalBusyMs(),
      });
    }
    // Bolts and ackers first, so that a spout's first tuples find their targets ready.
    for (const ex of this.executorList) if (!(ex instanceof SpoutExecutor)) await ex.start();
    for (const ex of this.spouts) await ex.start();
    this.load?.start((tuple) => {
      for (const peer of this.transport.peerKeys()) this.transport.send(peer, tuple);
    });
    this.applyStatus(this.base.status);
    const beatMs = this.settings.heartbeatMs;
    this.beatLocally();
    await this.heartbeat();
    this.heartbeatTimer = setInterval(() => {
      // Local first: the supervisor's view of this worker must not depend on ZooKeeper answering.
      this.beatLocally();
      void this.heartbeat().catch((err: unknown) => this.log.warn({ err }, 'heartbeat failed'));
    }, beatMs);
    void this.watchAssignment();
    void this.watchStormBase();
    this.log.info({ executors: mine.executors.length, port: this.launch.port, gpu: mine.gpu }, 'worker started');
  }

  /** Stops taking new spout tuples, lets in-flight ones finish (up to `drainMs`), closes components. */
  async stop(drainMs = 2000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const s of this.spouts) s.deactivate();
    // Drain while it makes progress: tuples routed through a dead peer will never complete, so don't wait out the whole budget for them.
    const until = Date.now() + drainMs;
    const completed = () => this.spouts.reduce((n, s) => n + s.metrics.acked + s.metrics.failed, 0);
    let last = completed();
    let lastProgress = Date.now();
    while (Date.now() < until && Date.now() - lastProgress < 300 && this.spouts.some((s) => s.pendingCount > 0)) {
      await sleep(20);
      const now = completed();
      if (now !== last) [last, lastProgress] = [now, Date.now()];
    }
    await this.transport.drain(Math.max(0, until - Date.now()));
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.load?.stop();
    for (const ex of this.executorList) {
      try {
        await ex.stop();
      } catch (err) {
        this.log.warn({ err, task: ex.task }, 'component close threw');
      }
      ex.flushLogs();
    }
    this.signals.close();
    await this.heartbeat().catch(() => undefined);
    await this.transport.close();
    this.log.info('worker stopped');
  }

  // ── ExecutorHost ───────────────────────────────────────────────────────────

  tasksOf(component: string): readonly number[] {
    return this.componentTasks.get(component) ?? [];
  }

  isLocal(task: number): boolean {
    return this.taskWorker.get(task) === this.selfKey;
  }

  get routingLoad(): RoutingLoad | null {
    return this.load?.routing ?? null;
  }

  configOf(component: string): Readonly<Record<string, unknown>> {
    return this.componentConfig.get(component) ?? this.base.config;
  }

  fieldsOf(component: string, stream: string): Fields {
    const f = this.fields.get(component)?.get(stream) ?? SYSTEM_FIELDS.get(stream);
    if (!f) throw new EmitError(`stream "${stream}" of "${component}" is not declared`, component, stream);
    return f;
  }

  ackerFor(root: bigint): number | null {
    if (this.ackerTasks.length === 0) return null;
    return this.ackerTasks[idBucket(root, this.ackerTasks.length)]!;
  }

  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: bigint[] | null): void {
    const local = this.executors.get(dest);
    if (local) {
      local.enqueue(new Tuple(values, this.fieldsOf(srcComponent, stream), srcComponent, stream, srcTask, anchors), isSystemStream(stream));
      this.wake();
      return;
    }
    const peer = this.taskWorker.get(dest);
    if (peer === undefined) {
      this.droppedTuples++;
      this.dropLog.warn({ dest, stream }, 'no worker is assigned the destination task; dropping the tuple (its spout will replay it)');
      return;
    }
    this.transport.send(peer, [dest, srcTask, stream, values, anchors], isSystemStream(stream));
  }

  isCongested(targets: readonly number[]): boolean {
    for (const t of targets) {
      const local = this.executors.get(t);
      if (local) {
        if (local.queue.isFull()) return true;
      } else {
        const peer = this.taskWorker.get(t);
        if (peer !== undefined && this.transport.pendingTuples(peer) >= this.transferLimit) return true;
      }
    }
    return false;
  }

  wake(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  contextFor(component: string, task: number): TopologyContext {
    const tasks = this.tasksOf(component);
    const mine = this.myAssignment(this.assignment);
    const gpu = mine?.gpu ? { gpuId: mine.gpu.gpuId, name: mine.gpu.name, source: mine.gpu.source, pciBusId: mine.gpu.pciBusId ?? null } : null;
    return {
      topologyId: this.topologyId,
      topologyName: this.base.name,
      componentId: component,
      taskId: task,
      taskIndex: tasks.indexOf(task),
      componentTasks: tasks,
      tasksOf: (c: string) => this.tasksOf(c),
      topologyDef: this.def,
      codeDir: dirname(this.launch.modulePath),
      workerPort: this.launch.port,
      gpu,
      log: this.log.child({ component, task }),
      sendSignal: (target: string, name: string, value: unknown) => this.signals.send(target, name, value, { component, task }),
      onSignal: (name, handler) => this.signals.on(component, name, handler as (s: unknown) => void as never),
      onTupleComplete: (listener) => {
        const ex = this.executors.get(task);
        if (!(ex instanceof SpoutExecutor)) throw new Error(`onTupleComplete: "${component}" task ${task} is not a spout`);
        const prev = ex.observer;
        ex.observer = {
          onComplete: (stream, latencyMs, acked) => {
            prev?.onComplete(stream, latencyMs, acked);
            listener(stream, latencyMs, acked);
          },
        };
      },
      reportBusyTime: (supplier) => {
        this.executors.get(task)?.metrics.countOffThreadBusy(supplier);
      },
      reportMetrics: (section, supplier) => {
        this.executors.get(task)?.metricSections.set(section, supplier);
      },
      componentLoad: (c: string) => readComponentLoad(this.store, this.topologyId, c),
      ...userMetricsOf(() => this.executors.get(task), component, task),
      acquireGpuBackend: () => {
        this.gpuBackends ??= new WorkerGpuBackends(gpu, this.settings.gpuCpuThreads, this.log.child({ gpu: gpu?.gpuId ?? null }));
        return this.gpuBackends.acquire((this.configOf(component)['topology.gpu.backend'] as ForcedBackend | undefined) ?? 'auto');
      },
    };
  }

  /** The executor of a task in this worker (tests and the GPU/split extensions). */
  executorOf(task: number): Executor | undefined {
    return this.executors.get(task);
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private createExecutor(component: string, task: number): Executor {
    if (component === ACKER_COMPONENT) return new AckerExecutor(this, task);
    const factory = this.opts.topology.factories.get(component);
    if (!factory) throw new Error(`the topology module has no component "${component}"`);
    const instance = factory();
    if (instance instanceof Spout) return new SpoutExecutor(this, component, task, instance);
    const kind = this.def.components.find((c) => c.id === component)?.kind;
    if (kind === 'spout') return new SpoutExecutor(this, component, task, instance as unknown as Spout);
    return new BoltExecutor(this, component, task, instance as Exclude<typeof instance, Spout>);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    let more = false;
    for (const ex of this.executorList) {
      if (ex.ready()) ex.runSlice(performance.now() + SLICE_MS);
      if (ex.ready()) more = true;
    }
    this.releaseReceiver();
    if (more) this.wake();
  };

  private onBatch(batch: WireBatch): Promise<void> | void {
    const touched: Executor[] = [];
    for (const t of batch.tuples) {
      if (!isWireTuple(t)) {
        this.droppedTuples++;
        this.dropLog.warn({ from: batch.senderPort }, 'dropped a malformed tuple');
        continue;
      }
      const [dest, src, stream, values, anchors] = t;
      if (stream === LOAD_STREAM) {
        if (!this.load?.board.apply(values)) {
          this.droppedTuples++;
          this.dropLog.warn({ from: batch.senderPort }, 'dropped a malformed or unexpected load report');
        }
        continue;
      }
      const ex = this.executors.get(dest);
      const srcComponent = this.taskComponent.get(src);
      if (!ex || srcComponent === undefined) {
        this.droppedTuples++;
        this.dropLog.warn({ dest, src, from: batch.senderPort }, 'dropped a tuple for an unknown task');
        continue;
      }
      let fields: Fields;
      try {
        fields = this.fieldsOf(srcComponent, stream);
      } catch {
        this.droppedTuples++;
        this.dropLog.warn({ stream, src }, 'dropped a tuple on an undeclared stream');
        continue;
      }
      const system = isSystemStream(stream);
      if (!ex.enqueue(new Tuple(values, fields, srcComponent, stream, src, anchors), system)) {
        this.droppedTuples++; // a system tuple of the wrong shape or for the wrong task (logged by the executor)
        continue;
      }
      if (!system) touched.push(ex);
    }
    this.wake();
    const full = touched.filter((e) => e.queue.isFull());
    if (full.length === 0) return;
    // Stop reading from the network until these queues drain: the peers' sends then wait (ZeroMQ high-water mark).
    return new Promise<void>((resolve) => {
      this.receiveWaiter = { resolve, tasks: full };
    });
  }

  private releaseReceiver(): void {
    const w = this.receiveWaiter;
    if (w && w.tasks.every((e) => e.queue.length < e.queue.capacity / 2)) {
      this.receiveWaiter = null;
      w.resolve();
    }
  }

  private myAssignment(a: Assignment): WorkerAssignment | undefined {
    return a.workers.find((w) => workerKey(w) === this.selfKey);
  }

  private applyAssignment(a: Assignment): void {
    const taskWorker = new Map<number, string>();
    const keep = new Set<string>();
    for (const w of a.workers) {
      const key = workerKey(w);
      for (const e of w.executors) taskWorker.set(e.task, key);
      if (key !== this.selfKey) {
        keep.add(key);
        this.transport.setPeer(key, { host: w.host, port: w.port });
      }
    }
    for (const k of this.transport.peerKeys()) if (!keep.has(k)) this.transport.dropPeer(k);
    this.taskWorker = taskWorker;
    this.assignment = a;
  }

  private applyStatus(status: StormBase['status']): void {
    for (const s of this.spouts) {
      if (status === 'active' && !this.stopping) s.activate();
      else s.deactivate();
    }
  }

  private async watchAssignment(): Promise<void> {
    const path = ZkPaths.assignment(this.topologyId);
    try {
      const a = await readJsonNode(this.store, path, assignmentSchema, () => void this.watchAssignment());
      if (!a) {
        this.opts.onRetired?.('the topology has no assignment any more');
      } else if (a.epoch !== this.assignment.epoch) {
        this.log.info({ epoch: a.epoch }, 'assignment changed');
        this.applyAssignment(a);
        if (!this.myAssignment(a)) this.opts.onRetired?.('this slot is no longer assigned');
      }
    } catch (err) {
      if (this.skipCorrupt(err, path)) return;
      this.log.warn({ err }, 'reading the assignment failed; retrying');
      setTimeout(() => void this.watchAssignment(), 1000).unref();
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
      const b = await readJsonNode(this.store, path, stormBaseSchema, () => void this.watchStormBase());
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

  /** The heartbeat the supervisor judges this worker by (common/local-heartbeat.ts). */
  private beatLocally(): void {
    const file = this.launch.localHeartbeatFile;
    if (file && !writeLocalHeartbeat(file)) this.dropLog.warn({ file }, 'could not write the local heartbeat');
  }

  private async heartbeat(): Promise<void> {
    const mem = process.memoryUsage();
    const beat: WorkerHeartbeat = {
      version: 1,
      topologyId: this.topologyId,
      supervisorId: this.launch.supervisorId,
      host: this.launch.host,
      port: this.launch.port,
      pid: process.pid,
      epoch: this.assignment.epoch,
      time: Date.now(),
      uptimeSecs: Math.round((Date.now() - this.startedAt) / 1000),
      rssMB: Math.round(mem.rss / 1048576),
      droppedFrames: this.droppedFrames + this.droppedTuples,
      ...(this.load ? { routingLoad: this.load.stats() } : {}),
      executors: this.executorList.map((ex) => {
        const m = ex.metrics.snapshot(ex.queueDepth, ex.metrics.rollCapacity());
        const extra = (ex as { extraMetrics?: () => object }).extraMetrics?.();
        return extra ? { ...m, ...extra } : m;
      }),
    };
    await writeJsonNode(this.store, ZkPaths.workerbeat(this.topologyId, this.launch.supervisorId, this.launch.port), beat);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
