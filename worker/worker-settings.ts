/**
 * What a worker reads of its config, compiled once (as nimbus-config.ts and
 * supervisor-config.ts do for their daemons):
 * - WorkerSettings, worker-wide: from its topology's stored config and its
 *   supervisor's cluster config;
 * - ComponentSettings, per component: from the component's effective config
 *   (the topology config with the component's own on top), handed to each of
 *   its executors.
 * The schema's defaults go underneath (withDefaults) for keys a record written
 * by an older nimbus lacks. Every value was validated where its config was
 * built, so nothing here checks one again; defaults live in
 * common/config/schema.ts alone. Nothing else in worker/ reads a config key.
 */
import { secsToMs, withDefaults, type Config, type ConfigRecord, type ConfigValue } from '../common/config/index.js';
import { ACKER_COMPONENT, type TopologyDef } from '../common/topology-def.js';
import { stateStoreSettings, type StateStoreSettings } from '../common/state-store/index.js';

/** The load signal of twoChoice / loadAwareShuffle groupings (routing/load/). */
export interface LoadSettings {
  /** `topology.load.update.interval.ms`: how often the figures are refreshed and published. */
  updateIntervalMs: number;
  /** `topology.load.stale.ms`: a remote figure older than this is not used. */
  staleMs: number;
  /** `topology.localityaware.higher.bound` / `.lower.bound` (loadAwareShuffle). */
  higherBound: number;
  lowerBound: number;
}

export interface WorkerSettings {
  /** Acker tasks: `topology.acker.executors`, default one per worker. */
  ackers: number;
  /** Tuples queued towards one remote worker before senders wait (`topology.transfer.buffer.size`). */
  transferBufferSize: number;
  /** Tuples a task may hold past its queue before the worker stops reading its link (`topology.executor.overflow.limit`). */
  overflowLimit: number;
  transferBatchSize: number;
  flushIntervalMs: number;
  /** `topology.transfer.max.frame.bytes`: the largest frame the worker's socket takes. */
  maxFrameBytes: number;
  /** `worker.heartbeat.frequency.secs` (the local liveness beat), at least 100 ms. */
  heartbeatMs: number;
  /** `nimbus.task.timeout.secs`, in ms: how long without ZooKeeper before the spouts pause (fencing/zookeeper-lease.ts). */
  zooKeeperLeaseMs: number;
  /** `topology.stale.tuple.margin.secs`, in ms; null: stale tuples execute too (fencing/stale-tuples.ts). */
  staleTupleMarginMs: number | null;
  /** `topology.stats.report.secs` (the metrics record in ZooKeeper), at least 100 ms. */
  metricsMs: number;
  /** `topology.gpu.cpu.threads`; null: the machine's cores. */
  gpuCpuThreads: number | null;
  load: LoadSettings;
  /** `topology.state.provider` and `.provider.config`: the store stateful bolts and the checkpoint spout use. */
  state: StateStoreSettings;
}

export function workerSettings(topologyConfig: ConfigRecord, clusterConfig: ConfigRecord): WorkerSettings {
  const topo = withDefaults(topologyConfig);
  const cluster = withDefaults(clusterConfig);
  return {
    ackers: topo['topology.acker.executors'] ?? topo['topology.workers'],
    transferBufferSize: topo['topology.transfer.buffer.size'],
    overflowLimit: topo['topology.executor.overflow.limit'],
    transferBatchSize: topo['topology.transfer.batch.size'],
    flushIntervalMs: topo['topology.batch.flush.interval.millis'],
    maxFrameBytes: topo['topology.transfer.max.frame.bytes'],
    heartbeatMs: Math.max(100, secsToMs(cluster['worker.heartbeat.frequency.secs'])),
    zooKeeperLeaseMs: secsToMs(cluster['nimbus.task.timeout.secs']),
    metricsMs: Math.max(100, secsToMs(topo['topology.stats.report.secs'])),
    staleTupleMarginMs: topo['topology.stale.tuple.margin.secs'] === null ? null : secsToMs(topo['topology.stale.tuple.margin.secs']),
    gpuCpuThreads: topo['topology.gpu.cpu.threads'],
    load: {
      updateIntervalMs: topo['topology.load.update.interval.ms'],
      staleMs: topo['topology.load.stale.ms'],
      higherBound: topo['topology.localityaware.higher.bound'],
      lowerBound: topo['topology.localityaware.lower.bound'],
    },
    state: stateStoreSettings(topo),
  };
}

/** What an executor reads of its component's config. */
export interface ComponentSettings {
  /** `topology.executor.receive.buffer.size`: the bound of each of the executor's queues. */
  receiveBufferSize: number;
  /** `topology.max.spout.pending`; Infinity: unbounded (only with acking off). */
  maxSpoutPending: number;
  /** `topology.message.timeout.secs`, in ms (not rounded: a test's 0.05 s stays 50 ms, a 0.0005 s one 0.5 ms). */
  messageTimeoutMs: number;
  /** `topology.spout.wait.ms`: a spout's sleep after a nextTuple that emitted nothing. */
  spoutWaitMs: number;
  /** `topology.gpu.backend`: the gpu.js backend a GPU bolt asks for. */
  gpuBackend: ConfigValue<'topology.gpu.backend'>;
  /** `topology.tick.tuple.freq.secs`: a bolt task's tick period as configured (the tick's value) and in ms; null: no ticks. */
  tick: { secs: number; ms: number } | null;
}

export function componentSettings(config: Config): ComponentSettings {
  return {
    receiveBufferSize: config['topology.executor.receive.buffer.size'],
    maxSpoutPending: config['topology.max.spout.pending'] ?? Infinity,
    messageTimeoutMs: config['topology.message.timeout.secs'] * 1000,
    spoutWaitMs: config['topology.spout.wait.ms'],
    gpuBackend: config['topology.gpu.backend'],
    tick: config['topology.tick.tuple.freq.secs'] === null ? null : { secs: config['topology.tick.tuple.freq.secs'], ms: config['topology.tick.tuple.freq.secs'] * 1000 },
  };
}

/**
 * Each component's effective config — what open/prepare hand the user, as
 * Storm hands a component the topology config with its own on top — and the
 * settings compiled from it, once per component. The acker's is the topology
 * config.
 */
export class ComponentConfigs {
  private readonly configs = new Map<string, Readonly<ConfigRecord>>();
  private readonly settings = new Map<string, ComponentSettings>();

  /** `current`: the topology config now (it follows StormBase updates), for a component the topology does not declare. */
  constructor(
    def: TopologyDef,
    topologyConfig: ConfigRecord,
    private readonly current: () => ConfigRecord,
  ) {
    // A component's own config was validated key by key where the topology was built (createTopology) and again at
    // submit: the cast restores the type it was checked against.
    for (const c of def.components) this.add(c.id, { ...topologyConfig, ...(c.config as ConfigRecord) });
    this.add(ACKER_COMPONENT, { ...topologyConfig });
  }

  configOf(component: string): Readonly<ConfigRecord> {
    return this.configs.get(component) ?? this.current();
  }

  settingsOf(component: string): ComponentSettings {
    return this.settings.get(component) ?? componentSettings(withDefaults(this.current()));
  }

  private add(component: string, config: ConfigRecord): void {
    this.configs.set(component, Object.freeze(config));
    this.settings.set(component, componentSettings(withDefaults(config)));
  }
}
