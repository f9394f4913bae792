/**
 * The serializable shape of a topology: what `TopologyBuilder` produces apart
 * from the spout/bolt factories. Nimbus stores it in the cluster state, the
 * scheduler reads it, and every worker checks the module it loads against it.
 */
export const DEFAULT_STREAM = 'default';
/** Component id of the acker tasks (as in Storm). */
export const ACKER_COMPONENT = '__acker';
/**
 * The checkpoint spout the builder adds to a topology with a stateful bolt (Storm's `$checkpointspout`, named in
 * hstorm's system style), and the stream it starts, which every bolt forwards (Storm's `$checkpoint`). Its tuples
 * carry `[txid, action]`.
 */
export const CHECKPOINT_COMPONENT = '__checkpointspout';
export const CHECKPOINT_STREAM = '__checkpoint';
export const CHECKPOINT_FIELDS: readonly string[] = Object.freeze(['txid', 'action']);
/** Storm's system component: the source of tick tuples (Constants.SYSTEM_COMPONENT_ID). */
export const SYSTEM_COMPONENT = '__system';
/** Storm's system task id, the source task of tick tuples (Constants.SYSTEM_TASK_ID). */
export const SYSTEM_TASK_ID = -1;
/** The stream of tick tuples (Constants.SYSTEM_TICK_STREAM_ID); its one field is `rate_secs`. */
export const TICK_STREAM = '__tick';

export type GroupingDef =
  | { type: 'shuffle' }
  | { type: 'localOrShuffle' }
  | { type: 'fields'; fields: string[] }
  | { type: 'all' }
  | { type: 'global' }
  | { type: 'direct' }
  | { type: 'twoChoice' }
  | { type: 'loadAwareShuffle' }
  /** Storm's noneGrouping: "don't care", routed as shuffle (as Storm does). */
  | { type: 'none' }
  /** Storm's partialKeyGrouping: each key goes to the less loaded of its two candidate tasks. */
  | { type: 'partialKey'; fields: string[] }
  /**
   * A user's CustomStreamGrouping. The definition travels as JSON, so it holds only the grouping's name (its class
   * name, for describe and the UI); the object itself comes from the topology module, which every worker loads
   * (StormTopology.customGroupings), as the component factories do.
   */
  | { type: 'custom'; name: string };

export interface StreamDef {
  id: string;
  fields: string[];
  /** Only `emitDirect` may emit on a direct stream. */
  direct: boolean;
}

/** A stream of a component (Storm's GlobalStreamId). */
export interface GlobalStreamId {
  readonly componentId: string;
  readonly streamId: string;
}

export interface InputDef {
  component: string;
  stream: string;
  grouping: GroupingDef;
}

/** What a GPU component asks of the scheduler. */
export interface GpuRequest {
  /** GPU memory one executor needs, in MB (0 = unknown). */
  memoryMB: number;
}

/** A window length or slide: a number of tuples, or a duration in ms. */
export interface WindowSizeDef {
  unit: 'count' | 'ms';
  value: number;
}

/**
 * A windowed bolt's window (topology-sdk/windowed-bolt.ts), as the builder
 * reads it from the bolt instance: in the definition so that a submit can be
 * checked against the topology's timeout and spout pending bound before
 * anything runs, and so that describe can show it.
 */
export interface WindowDef {
  length: WindowSizeDef;
  slide: WindowSizeDef;
  /** Event time: the tuple field holding the timestamp, or null for a timestamp extractor (a function). */
  timestampField: string | null;
  /** Windows follow watermarks over tuple timestamps (a field or an extractor); false: processing time. */
  eventTime: boolean;
  lagMs: number;
  watermarkIntervalMs: number;
  /** withIdleTimeout: an input task silent this long no longer holds the watermark back; null (the default): never. */
  idleTimeoutMs: number | null;
  /** Stream late tuples are emitted on (field `late_tuple`); null: they are dropped and counted. */
  lateStream: string | null;
}

/**
 * A stateful bolt (topology-sdk/stateful-bolt.ts, stateful-windowed-bolt.ts): in the definition so that a submit can
 * check the checkpoint interval against the message timeout, the window bounds know which tuples the checkpoint
 * holds, and describe can show it.
 */
export interface StateDef {
  /** Stateful windowed bolts: the tuple field holding each input's message id (withMessageIdField); null: none. */
  messageIdField: string | null;
  /** Stateful windowed bolts with withPersistence(): their tuples live in the state store, this many at most in memory; null: in memory. */
  maxEventsInMemory: number | null;
}

export interface ComponentDef {
  id: string;
  kind: 'spout' | 'bolt';
  parallelism: number;
  streams: StreamDef[];
  inputs: InputDef[];
  /** Non-null marks a GPU component: its executors go to GPU workers. */
  gpu: GpuRequest | null;
  /** Component-level config (overrides topology config for this component). */
  config: Record<string, unknown>;
  /** Windowed bolts only: their window. */
  window?: WindowDef;
  /** Stateful bolts only (the checkpoint spout is not one). */
  state?: StateDef;
}

export interface TopologyDef {
  components: ComponentDef[];
  /** Topology config as given by the module (validated, user keys kept). */
  config: Record<string, unknown>;
  /**
   * Names of the classes registered with TopologyBuilder.registerSerialization, in order (Storm's
   * topology.kryo.register); the classes come from the module, which every worker loads. Absent: none.
   */
  serializations?: string[];
}

export interface TaskInfo {
  task: number;
  component: string;
  /** Index of the task within its component (0-based). */
  index: number;
}

/**
 * Task ids as Storm numbers them: 1.., components in declaration order, each
 * component's tasks consecutive, ackers last. Every process derives the same
 * numbering from the same definition.
 */
export function computeTasks(def: TopologyDef, ackerTasks: number): TaskInfo[] {
  const tasks: TaskInfo[] = [];
  let next = 1;
  for (const c of def.components) {
    for (let i = 0; i < c.parallelism; i++) tasks.push({ task: next++, component: c.id, index: i });
  }
  for (let i = 0; i < ackerTasks; i++) tasks.push({ task: next++, component: ACKER_COMPONENT, index: i });
  return tasks;
}

/** The definition with some components' parallelism replaced (rebalance -e): the rest as it was. */
export function withParallelism(def: TopologyDef, parallelism: Readonly<Record<string, number>>): TopologyDef {
  if (Object.keys(parallelism).length === 0) return def;
  return { ...def, components: def.components.map((c) => (parallelism[c.id] !== undefined ? { ...c, parallelism: parallelism[c.id]! } : c)) };
}
