/**
 * The worker's tasks wired together, and the ExecutorHost its executors talk
 * to: the task table (task-table.ts), each component's config and settings
 * (worker-settings.ts), the executors of this worker's tasks
 * (executor/executor-factory.ts), the transport to the other workers
 * (transport/), tuples going out (executor-transfer.ts) and coming in
 * (batch-receiver.ts), and the run loop that drives the executors. The
 * worker's lifecycle (worker.ts) drives this.
 */
import type { Logger } from '../common/logger.js';
import { ACKER_COMPONENT, type TopologyDef } from '../common/topology-def.js';
import { workerKey, type Assignment, type WorkerAssignment } from '../common/assignment.js';
import type { ConfigRecord } from '../common/config/index.js';
import type { WorkerLaunch } from '../common/worker-env.js';
import type { StormTopology } from '../topology-sdk/topology-builder.js';
import type { ComponentPlacement, TopologyContext } from '../topology-sdk/context.js';
import type { CustomStreamGrouping } from '../topology-sdk/custom-grouping.js';
import type { Executor } from './executor/executor.js';
import type { ExecutorHost, LocalAcker } from './executor/executor-host.js';
import type { AnchorIds } from './executor/runtime-tuple.js';
import type { AckKind } from './acking/ack-messages.js';
import { ExecutorFactory } from './executor/executor-factory.js';
import { SpoutExecutor } from './executor/spout-executor.js';
import { AckerExecutor } from './acking/acker-executor.js';
import type { LinkSecurity } from './transport/link-security.js';
import { ZmqTransport } from './transport/zmq-transport.js';
import { stampOf, tagOf } from './transport/frame-stamp.js';
import { EpochFence, FENCE_GRACE_MS } from './fencing/epoch-fence.js';
import { StaleTuples } from './fencing/stale-tuples.js';
import { NO_TREE_START } from './transport/frame-tree-time.js';
import { WorkerLoad } from './routing/load/worker-load.js';
import type { RoutingLoad } from './routing/load/task-load.js';
import { ComponentConfigs, type WorkerSettings } from './worker-settings.js';
import { TaskTable } from './task-table.js';
import { ExecutorTransfer } from './executor-transfer.js';
import { BatchReceiver } from './batch-receiver.js';
import { RunLoop } from './run-loop.js';
import { realIntervalClock, type IntervalClock } from '../common/interval-clock.js';
import { ValueTypes } from '../common/values/value-types.js';
import { registerValueTypes } from '../common/values/wire-form.js';
import { LocalOverload } from './backpressure/local-overload.js';
import { RemoteOverload } from './backpressure/remote-overload.js';
import type { BackpressureStats } from '../common/storm-base.js';

export interface TaskWiringOptions {
  launch: WorkerLaunch;
  log: Logger;
  def: TopologyDef;
  topology: StormTopology;
  /** This worker's key in the assignment (common/assignment.ts workerKey). */
  selfKey: string;
  settings: WorkerSettings;
  /** The topology config the worker started with (components' effective configs are built from it once). */
  config: ConfigRecord;
  /** The topology config now (it follows StormBase updates): the config of a component the topology does not declare. */
  currentConfig: () => ConfigRecord;
  link?: LinkSecurity | undefined;
  /** Builds the context handed to a task's open/prepare (context/topology-context-factory.ts). */
  contextFor: (component: string, task: number) => TopologyContext;
  /** Timers and the wall clock (tick tuples, the stale-tuple rule); absent: real ones. Tests step a manual clock. */
  clock?: IntervalClock | undefined;
}

export class TaskWiring implements ExecutorHost {
  readonly topologyId: string;
  readonly log: Logger;
  readonly def: TopologyDef;
  readonly table: TaskTable;
  /** Each component's effective config and settings. */
  readonly components: ComponentConfigs;
  readonly transport: ZmqTransport;
  /** Load figures for twoChoice / loadAwareShuffle groupings; null when the topology has none. */
  readonly load: WorkerLoad | null;
  /** Per-task backpressure: this worker's overloaded tasks (announced to the peers) and the peers' (held for). */
  private readonly overload: LocalOverload;
  private readonly remoteOverload: RemoteOverload;
  private readonly executors = new Map<number, Executor>();
  /** Every executor of this worker, bolts and ackers and spouts, in creation order. */
  readonly executorList: Executor[] = [];
  readonly spouts: SpoutExecutor[] = [];
  private readonly loop: RunLoop;
  private readonly transfer: ExecutorTransfer;
  private readonly receiver: BatchReceiver;
  /** Which frames are accepted, by their sender's stamp (fencing/epoch-fence.ts). */
  private readonly fence: EpochFence;
  /** Which tracked tuples are too old to execute (fencing/stale-tuples.ts). */
  readonly staleTuples: StaleTuples;
  private readonly factory: ExecutorFactory;
  /** Called after every assignment this worker applies (TopologyContext.onPlacementChange). */
  private readonly placementListeners = new Set<() => void>();

  constructor(private readonly opts: TaskWiringOptions) {
    this.topologyId = opts.launch.topologyId;
    this.log = opts.log;
    this.clock = opts.clock ?? realIntervalClock;
    this.def = opts.def;
    this.table = new TaskTable(opts.def, opts.settings.ackers, opts.selfKey);
    this.valueTypes = new ValueTypes(opts.topology.serializations);
    // Before the transport decodes a frame: a value of a registered class arrives as an instance of it.
    registerValueTypes(this.valueTypes);
    this.components = new ComponentConfigs(opts.def, opts.config, opts.currentConfig);
    this.load = WorkerLoad.forTopology(opts.def, opts.settings.load);
    // The loop seals partial batches whenever it runs dry, not only when the flush timer fires: no hop of an acked
    // tuple's round trip (emit, init, ack, reply) waits for the timer while the worker has nothing else to do
    // (the numbers: docs/benchmarks.md, "Acking, third round").
    this.overload = new LocalOverload(opts.selfKey, (status) => {
      for (const peer of this.transport.peerKeys()) this.transport.send(peer, status);
      // A status is not data: it leaves now, not when the batch fills or its flush timer fires.
      this.transport.flushAll();
    });
    this.remoteOverload = new RemoteOverload((task) => this.table.workerOf(task), this.clock);
    this.loop = new RunLoop(
      this.executorList,
      () => this.transport.flushAll(),
      () => {
        const resumed = this.receiver.resumeParked();
        this.overload.update();
        return resumed;
      },
      () => this.transfer.takeHeldByPeer(),
    );
    this.fence = new EpochFence(tagOf(this.topologyId), FENCE_GRACE_MS);
    // A tree may live as long as the longest timeout any component sets (a spout's own config may raise it).
    const messageTimeoutMs = Math.max(...[ACKER_COMPONENT, ...opts.def.components.map((c) => c.id)].map((c) => this.components.settingsOf(c).messageTimeoutMs));
    this.staleTuples = new StaleTuples({ messageTimeoutMs, marginMs: opts.settings.staleTupleMarginMs, now: () => this.clock.now() }, this.log);
    this.receiver = new BatchReceiver(
      this.table,
      this.executors,
      this.loop,
      this.load,
      { local: this.overload, remote: this.remoteOverload, overflowLimit: opts.settings.overflowLimit },
      this.log,
      this.fence,
      this.staleTuples,
    );
    this.transport = new ZmqTransport(
      {
        port: opts.launch.port,
        ...opts.link,
        batchSize: opts.settings.transferBatchSize,
        flushIntervalMs: opts.settings.flushIntervalMs,
        highWaterMark: 64,
        maxFrameBytes: opts.settings.maxFrameBytes,
        stamp: stampOf(this.topologyId, opts.selfKey, 0),
      },
      {
        onBatch: (b) => this.receiver.onBatch(b),
        onGarbage: () => this.receiver.onGarbage(),
        onDrain: () => this.loop.wake(),
      },
      this.log,
    );
    this.transfer = new ExecutorTransfer(this.table, this.executors, this.transport, this.loop, opts.settings.transferBufferSize, this.remoteOverload, this.log);
    this.factory = new ExecutorFactory({
      host: this,
      def: opts.def,
      topology: opts.topology,
      modulePath: opts.launch.modulePath,
      settingsOf: (c) => this.components.settingsOf(c),
    });
  }

  /** Frames dropped whole: undecodable, fenced (from a stranded worker), of another topology. */
  get droppedFrames(): number {
    return this.receiver.droppedFrames + this.receiver.staleFrames + this.receiver.foreignFrames;
  }

  /** Frames fenced: from a worker on an older assignment that no longer holds a slot (fencing/epoch-fence.ts). */
  get staleFrames(): number {
    return this.receiver.staleFrames;
  }

  /** Tuples dropped: malformed, for an unknown task or stream, no worker holds the destination, alone bigger than a frame. */
  get droppedTuples(): number {
    return this.receiver.droppedTuples + this.transfer.dropped + this.transport.oversizeTuples + this.transport.unencodableTuples;
  }

  /** Builds an executor for each of this worker's tasks (not started yet). */
  buildExecutors(mine: WorkerAssignment): void {
    for (const { component, task } of mine.executors) {
      const ex = this.factory.create(component, task);
      this.executors.set(task, ex);
      this.executorList.push(ex);
      if (ex instanceof SpoutExecutor) this.spouts.push(ex);
      this.load?.watch(component, task, {
        backlog: () => ex.pendingInput + ex.inService,
        capacity: ex.queue.capacity,
        executed: () => ex.metrics.executed,
        busyMs: () => ex.metrics.totalBusyMs(),
      });
    }
    this.transfer.routesChanged();
  }

  /** Starts the backpressure status resends and the expiry of stale peer statuses. */
  startBackpressure(): void {
    this.overload.start(this.clock);
    this.remoteOverload.start();
  }

  stopBackpressure(): void {
    this.overload.stop();
    this.remoteOverload.stop();
  }

  /** Per-task backpressure, for the heartbeat. */
  backpressureStats(): BackpressureStats {
    return {
      overloadedTasks: this.overload.tasks(),
      overloadEvents: this.overload.overloadEvents,
      statusesSent: this.overload.statusesSent,
      overflowTuples: this.overload.overflowTuples,
      overflowMax: this.overload.overflowMax,
      linkPauses: this.receiver.linkPauses,
      readPauses: this.receiver.readPauses,
      remoteOverloadedTasks: this.remoteOverload.tasks(),
      statusesReceived: this.remoteOverload.statusesReceived,
      statusesDropped: this.remoteOverload.statusesDropped,
      heldChecks: this.remoteOverload.heldChecks,
    };
  }

  /** Starts sending this worker's load reports to every peer (a no-op without load-aware groupings). */
  startLoadReports(): void {
    this.load?.start((tuple) => {
      for (const peer of this.transport.peerKeys()) this.transport.send(peer, tuple);
    });
  }

  /**
   * Points tasks at the workers that now hold them and links at the workers that now exist; then the executors'
   * routers and the components that asked (a StreamSplit) re-read which tasks run.
   */
  applyAssignment(a: Assignment): void {
    const peers = this.table.applyAssignment(a);
    this.fence.adopt(a.epoch, a.workers.map((w) => tagOf(workerKey(w))));
    this.transport.setEpoch(a.epoch);
    for (const [key, address] of peers) this.transport.setPeer(key, address);
    for (const k of this.transport.peerKeys()) if (!peers.has(k)) this.transport.dropPeer(k);
    this.transfer.routesChanged();
    for (const ex of this.executorList) ex.placementChanged();
    for (const listener of this.placementListeners) {
      try {
        listener();
      } catch (err) {
        this.log.warn({ err }, 'a placement listener threw');
      }
    }
  }

  /** `listener` runs after each assignment this worker applies; returns its removal. */
  onPlacementChange(listener: () => void): () => void {
    this.placementListeners.add(listener);
    return () => this.placementListeners.delete(listener);
  }

  /** The executor of a task in this worker (the context factory, tests). */
  executorOf(task: number): Executor | undefined {
    return this.executors.get(task);
  }

  // ── ExecutorHost ───────────────────────────────────────────────────────────

  tasksOf(component: string): readonly number[] {
    return this.table.tasksOf(component);
  }

  isLocal(task: number): boolean {
    return this.table.isLocal(task);
  }

  isPlaced(task: number): boolean {
    return this.table.isPlaced(task);
  }

  placementOf(component: string): ComponentPlacement {
    return this.table.placementOf(component);
  }

  get routingLoad(): RoutingLoad | null {
    return this.load?.routing ?? null;
  }

  readonly clock: IntervalClock;
  /** The classes the topology registered, installed for this process's decoder (common/values/wire-form.ts). */
  readonly valueTypes: ValueTypes;

  customGrouping(subscriber: string, source: string, stream: string): CustomStreamGrouping | undefined {
    return this.opts.topology.customGrouping(subscriber, source, stream);
  }

  configOf(component: string): Readonly<Record<string, unknown>> {
    return this.components.configOf(component);
  }

  ackerFor(rootLo: number): number | null {
    return this.table.ackerFor(rootLo);
  }

  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: AnchorIds, wire: unknown[] | null = null, treeStart = NO_TREE_START): void {
    this.transfer.send(dest, srcComponent, srcTask, stream, values, anchors, wire, treeStart);
  }

  sendAck(dest: number, srcTask: number, kind: AckKind, rootLo: number, rootHi: number, valLo: number, valHi: number): void {
    this.transfer.sendAck(dest, srcTask, kind, rootLo, rootHi, valLo, valHi);
  }

  sendAcks(dest: number, srcTask: number, kind: AckKind, words: Uint32Array): void {
    this.transfer.sendAcks(dest, srcTask, kind, words);
  }

  isCongested(targets: readonly number[]): boolean {
    return this.transfer.isCongested(targets);
  }

  wake(): void {
    this.loop.wake();
  }

  localAcker(task: number): LocalAcker | undefined {
    const ex = this.executors.get(task);
    return ex instanceof AckerExecutor ? ex : undefined;
  }

  runsHere(task: number): boolean {
    return this.executors.has(task);
  }

  contextFor(component: string, task: number): TopologyContext {
    return this.opts.contextFor(component, task);
  }
}
