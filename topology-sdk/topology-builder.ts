/**
 * TopologyBuilder: declares spouts, bolts and their subscriptions, and builds
 * a validated StormTopology (the serializable definition plus the factories a
 * worker uses to instantiate its tasks).
 */
import {
  CHECKPOINT_COMPONENT,
  CHECKPOINT_FIELDS,
  CHECKPOINT_STREAM,
  DEFAULT_STREAM,
  type ComponentDef,
  type GpuRequest,
  type GroupingDef,
  type StreamDef,
  type TopologyDef,
} from '../common/topology-def.js';
import { TopologyValidationError } from '../common/errors.js';
import { checkCrossKeys, checkKey, validateEntries } from '../common/config/config.js';
import { OutputFieldsDeclarer } from './output-declarer.js';
import { Grouping } from './grouping.js';
import { fieldNames, type Fields } from './fields.js';
import type { BasicBolt, Bolt, BoltFactory, Spout, SpoutFactory } from './components.js';
import { boltFactoryOf, isLocalEndpoint, spoutFactoryOf, type LocalEndpoint, type TaskSource } from './internal/component-source.js';
import type { BoltBiConsumer, SpoutSupplier } from './internal/lambda-components.js';
import { validateTopology } from './validate-topology.js';
import type { ClassOf, SerializationRegistration, Serializer } from './serialization.js';
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { groupingFactory, groupingName, isGrouping, subscriptionKey, type CustomGroupingSource, type CustomStreamGrouping } from './custom-grouping.js';
import { WindowedBolt } from './windowed-bolt.js';
import { StatefulBolt, type StatefulBoltFactory } from './stateful-bolt.js';
import { WindowedBoltExecutor } from './internal/windowed-bolt-executor.js';
import { StatefulBoltExecutor } from './internal/stateful-bolt-executor.js';
import { CheckpointForwarder } from './internal/checkpoint-forwarder.js';
import { CheckpointSpout } from './internal/checkpoint-spout.js';
import { statefulWindowedExecutor } from './internal/stateful-windowed-bolt-executor.js';
import { WindowingBolt } from './internal/windowing-bolt.js';
import { StatefulWindowedBolt } from './stateful-windowed-bolt.js';
import { JoinBolt } from './join-bolt.js';

/** A factory of windowed bolts: the builder wraps each in the runtime's windowing bolt, as Storm's setBolt does. */
export type WindowedBoltFactory = () => WindowedBolt;

/** An object that makes each task's spout itself (hstorm/testing's FeederSpout). */
export type SpoutSource = TaskSource<Spout>;

/** Stands in for a component refused while declaring: createTopology throws the problem before any is made. */
const refused = (): never => {
  throw new TopologyValidationError('a refused component was instantiated');
};

const ID = /^[A-Za-z0-9_.-]+$/;

/** What a topology module builds besides its definition: what cannot travel as JSON, rebuilt in every worker. */
export interface TopologyCode {
  /** Custom groupings by subscription (custom-grouping.ts subscriptionKey): a fresh object per emitting task. */
  customGroupings?: ReadonlyMap<string, () => CustomStreamGrouping>;
  /** Classes whose instances travel between workers (registerSerialization), in the order of def.serializations. */
  serializations?: readonly SerializationRegistration[];
  /** The file of the module that built it (see StormTopology.origin). */
  origin?: string | null;
  /** Components the submitting process talks to (FeederSpout), by id: LocalCluster.submitTopology connects them. */
  endpoints?: ReadonlyMap<string, LocalEndpoint>;
}

export class StormTopology {
  readonly customGroupings: ReadonlyMap<string, () => CustomStreamGrouping>;
  readonly serializations: readonly SerializationRegistration[];
  readonly endpoints: ReadonlyMap<string, LocalEndpoint>;
  /**
   * The file of the module that built this topology, as far as hstorm can tell: the one a worker loads to build it
   * again (a topology runs in worker processes, which cannot be handed this object). Set by hstorm's loader, else
   * read from the call stack of createTopology (the first file outside the SDK); null when neither says.
   * LocalCluster.submitTopology(name, conf, topology) submits that module, and checks it builds this very topology.
   */
  origin: string | null;

  constructor(
    readonly def: TopologyDef,
    readonly factories: ReadonlyMap<string, SpoutFactory | BoltFactory>,
    code: TopologyCode = {},
  ) {
    this.customGroupings = code.customGroupings ?? new Map();
    this.serializations = code.serializations ?? [];
    this.origin = code.origin ?? null;
    this.endpoints = code.endpoints ?? new Map();
  }

  /** The code of this topology (to build a changed copy of it, as hstorm/testing does). */
  get code(): TopologyCode {
    return { customGroupings: this.customGroupings, serializations: this.serializations, origin: this.origin, endpoints: this.endpoints };
  }

  /** A new object of the custom grouping `subscriber` uses on `source`'s `stream`; undefined when it has none. */
  customGrouping(subscriber: string, source: string, stream: string): CustomStreamGrouping | undefined {
    return this.customGroupings.get(subscriptionKey(subscriber, source, stream))?.();
  }
}

/** Where a declarer records what the definition cannot hold. */
interface DeclarerSink {
  customGroupings: Map<string, () => CustomStreamGrouping>;
  problems: string[];
}

abstract class ComponentDeclarer<Self> {
  constructor(
    protected readonly comp: ComponentDef,
    protected readonly sink: DeclarerSink,
  ) {}

  /**
   * Storm's setNumTasks: the component gets `tasks` tasks, each with its own instance. A Storm executor is a thread
   * that may run several tasks; a worker here runs all its executors on its one thread, so every task is its own
   * executor and `tasks` is also the component's executors (Storm too never runs more executors than tasks).
   */
  setNumTasks(tasks: number): Self {
    if (!Number.isInteger(tasks) || tasks < 1) this.sink.problems.push(`component "${this.comp.id}": setNumTasks needs an integer ≥ 1, got ${String(tasks)}`);
    else this.comp.parallelism = tasks;
    return this as unknown as Self;
  }

  /** Component-level config (e.g. GPU batch size); overrides topology config for this component. */
  addConfiguration(key: string, value: unknown): Self {
    this.comp.config[key] = value;
    return this as unknown as Self;
  }

  /**
   * Marks the component as a GPU component: its executors are placed in GPU
   * workers. `memoryMB` is the GPU memory ONE executor needs: GPU workers of
   * several topologies share a GPU while their declared memory fits, and HDRF
   * counts it in the topology's share (default: `topology.gpu.memory.mb`).
   */
  gpu(request: Partial<GpuRequest> = {}): Self {
    const mb = request.memoryMB ?? 0;
    if (typeof mb !== 'number' || !Number.isFinite(mb) || mb < 0) {
      throw new TopologyValidationError(`component "${this.comp.id}": .gpu({ memoryMB }) must be a number of MB ≥ 0, got ${String(mb)}`, this.comp.id);
    }
    this.comp.gpu = { memoryMB: mb };
    return this as unknown as Self;
  }

  /** CPU one executor needs, in percent of a core (Storm's setCPULoad; default `topology.component.cpu.pcore.percent`). */
  setCPULoad(percent: number): Self {
    this.comp.config['topology.component.cpu.pcore.percent'] = checkKey('topology.component.cpu.pcore.percent', percent);
    return this as unknown as Self;
  }

  /** Memory one executor needs, in MB (Storm's setMemoryLoad; default `topology.component.resources.onheap.memory.mb`). */
  setMemoryLoad(mb: number): Self {
    this.comp.config['topology.component.resources.onheap.memory.mb'] = checkKey('topology.component.resources.onheap.memory.mb', mb);
    return this as unknown as Self;
  }
}

export class SpoutDeclarer extends ComponentDeclarer<SpoutDeclarer> {}

export class BoltDeclarer extends ComponentDeclarer<BoltDeclarer> {
  /** Subscribes to `componentId`'s stream (default stream unless given) with a grouping. */
  grouping(componentId: string, grouping: GroupingDef, streamId: string = DEFAULT_STREAM): this {
    this.comp.inputs.push({ component: componentId, stream: streamId, grouping });
    return this;
  }

  shuffleGrouping(componentId: string, streamId?: string): this {
    return this.grouping(componentId, Grouping.shuffle(), streamId);
  }

  localOrShuffleGrouping(componentId: string, streamId?: string): this {
    return this.grouping(componentId, Grouping.localOrShuffle(), streamId);
  }

  /** Two random choices ranked by estimated wait (see Grouping.twoChoice). */
  twoChoiceGrouping(componentId: string, streamId?: string): this {
    return this.grouping(componentId, Grouping.twoChoice(), streamId);
  }

  /** Storm's loadAwareShuffleGrouping (see Grouping.loadAwareShuffle). */
  loadAwareShuffleGrouping(componentId: string, streamId?: string): this {
    return this.grouping(componentId, Grouping.loadAwareShuffle(), streamId);
  }

  /** Storm's noneGrouping ("don't care"): routed as shuffle, as Storm does. */
  noneGrouping(componentId: string, streamId?: string): this {
    return this.grouping(componentId, Grouping.none(), streamId);
  }

  /**
   * Storm's partialKeyGrouping: a key goes to one of two candidate tasks (two hashes of the key), the one with the
   * shorter estimated wait — the load signal of twoChoice — so a hot key is spread over two tasks instead of
   * swamping one. A bolt then sees partial results per key and must combine them downstream, as in Storm.
   */
  partialKeyGrouping(componentId: string, fields: Fields | readonly string[]): this;
  partialKeyGrouping(componentId: string, streamId: string, fields: Fields | readonly string[]): this;
  partialKeyGrouping(componentId: string, a: string | Fields | readonly string[], b?: Fields | readonly string[]): this {
    const [stream, fields] = typeof a === 'string' ? [a, b] : [DEFAULT_STREAM, a];
    return this.grouping(componentId, Grouping.partialKey(...fieldNames(fields, `component "${this.comp.id}": partialKeyGrouping("${componentId}", "${stream}")`)), stream);
  }

  /**
   * Storm's customGrouping: `grouping.chooseTasks(taskId, values)` picks the target tasks. Give an object (copied
   * per emitting task) or a function making one; its code must be in the topology module (or imported by it), which
   * every worker loads — see custom-grouping.ts.
   */
  customGrouping(componentId: string, grouping: CustomGroupingSource): this;
  customGrouping(componentId: string, streamId: string, grouping: CustomGroupingSource): this;
  customGrouping(componentId: string, a: string | CustomGroupingSource, b?: CustomGroupingSource): this {
    const [stream, source] = typeof a === 'string' ? [a, b] : [DEFAULT_STREAM, a];
    const where = `component "${this.comp.id}": customGrouping("${componentId}", "${stream}")`;
    if (!isGrouping(source) && typeof source !== 'function') {
      this.sink.problems.push(`${where}: the grouping must be a CustomStreamGrouping (prepare and chooseTasks) or a function returning one`);
      return this;
    }
    const factory = groupingFactory(source);
    let name: string;
    try {
      const sample = factory();
      if (!isGrouping(sample)) throw new Error('it returned no CustomStreamGrouping (prepare and chooseTasks)');
      name = groupingName(sample);
    } catch (err) {
      this.sink.problems.push(`${where}: ${(err as Error)?.message ?? String(err)}`);
      return this;
    }
    this.sink.customGroupings.set(subscriptionKey(this.comp.id, componentId, stream), factory);
    return this.grouping(componentId, { type: 'custom', name }, stream);
  }

  /** `fieldsGrouping(c, ['word'])`, `fieldsGrouping(c, new Fields('word'))`, or with Storm's stream first: `fieldsGrouping(c, stream, fields)`. */
  fieldsGrouping(componentId: string, fields: Fields | readonly string[]): this;
  fieldsGrouping(componentId: string, streamId: string, fields: Fields | readonly string[]): this;
  fieldsGrouping(componentId: string, a: string | Fields | readonly string[], b?: Fields | readonly string[]): this {
    const [stream, fields] = typeof a === 'string' ? [a, b] : [DEFAULT_STREAM, a];
    return this.grouping(componentId, Grouping.fields(...fieldNames(fields, `component "${this.comp.id}": fieldsGrouping("${componentId}", "${stream}")`)), stream);
  }

  allGrouping(componentId: string, streamId?: string): this {
    return this.grouping(componentId, Grouping.all(), streamId);
  }

  globalGrouping(componentId: string, streamId?: string): this {
    return this.grouping(componentId, Grouping.global(), streamId);
  }

  directGrouping(componentId: string, streamId?: string): this {
    return this.grouping(componentId, Grouping.direct(), streamId);
  }
}

export class TopologyBuilder {
  private readonly components: ComponentDef[] = [];
  private readonly factories = new Map<string, SpoutFactory | BoltFactory>();
  /** What the declarers record beside the definition: problems found while declaring, custom grouping objects. */
  private readonly sink: DeclarerSink = { customGroupings: new Map(), problems: [] };
  private readonly serializations: SerializationRegistration[] = [];
  /** Components the submitting process talks to (FeederSpout), by id. */
  private readonly endpoints = new Map<string, LocalEndpoint>();

  /**
   * Storm's registerSerialization (`topology.kryo.register`): instances of `Class` may be emitted, and arrive in a
   * task of another worker as instances of `Class` — prototype, methods and all. Without a serializer an instance
   * travels as its own enumerable fields and is rebuilt without calling its constructor; give one for a class with
   * private state or invariants. It travels under `Class.name` (or `options.name`), which must be unique within the
   * topology. An instance of a class not registered is refused at emit (EmitError, naming the field and class).
   */
  registerSerialization<T>(Class: ClassOf<T>, serializer?: Serializer<T> | null, options: { name?: string } = {}): this {
    const name = options.name ?? (typeof Class === 'function' ? Class.name : '');
    if (typeof Class !== 'function' || typeof Class.prototype !== 'object') {
      this.sink.problems.push(`registerSerialization needs a class, got ${typeof Class}`);
    } else if (!name) {
      this.sink.problems.push('registerSerialization: the class has no name; give one with registerSerialization(Class, serializer, { name })');
    } else if (this.serializations.some((r) => r.name === name)) {
      this.sink.problems.push(`registerSerialization: "${name}" is registered twice (two classes of one name need distinct { name } options)`);
    } else if (serializer != null && (typeof serializer.write !== 'function' || typeof serializer.read !== 'function')) {
      this.sink.problems.push(`registerSerialization(${name}): a serializer needs write(value) and read(data) functions`);
    } else {
      this.serializations.push({ name, Class, serializer: (serializer ?? null) as Serializer | null });
    }
    return this;
  }

  /**
   * A spout made per task by `factory` (`() => new SentenceSpout()`); or Storm 2's lambda spout, `setSpout(id,
   * supplier)`: each nextTuple emits what `supplier()` returns as field `lambda`, untracked (nothing for null). The two
   * are told apart by what the function returns, so it is called once when the topology is built; a supplier's value
   * from that call is the first the spout emits in that process. Or an object that makes its own tasks
   * (hstorm/testing's FeederSpout).
   */
  setSpout(id: string, factory: SpoutFactory, parallelism?: number): SpoutDeclarer;
  setSpout(id: string, supplier: SpoutSupplier, parallelism?: number): SpoutDeclarer;
  setSpout(id: string, source: SpoutSource, parallelism?: number): SpoutDeclarer;
  setSpout(id: string, source: SpoutFactory | SpoutSupplier | SpoutSource, parallelism = 1): SpoutDeclarer {
    const r = spoutFactoryOf(id, source);
    if (r.problem !== null) this.sink.problems.push(r.problem);
    if (isLocalEndpoint(source)) this.endpoints.set(id, source);
    return new SpoutDeclarer(this.add(id, 'spout', r.factory ?? refused, parallelism), this.sink);
  }

  /**
   * A bolt, a windowed bolt (wrapped in the windowing bolt), or a stateful bolt (wrapped in the stateful executor; with
   * one in the topology, the builder adds the checkpoint spout and wires its stream through every bolt), each made per
   * task by `factory`. Or Storm 2's lambda bolts, told from a factory by the parameters they declare:
   * `setBolt(id, (tuple, collector) => …, parallelism?, ...fields)` — a basic bolt (emits anchored, acked on return)
   * declaring `fields` on the default stream — and `setBolt(id, (tuple) => …, parallelism?)`, which emits nothing.
   */
  setBolt(id: string, factory: BoltFactory | WindowedBoltFactory | StatefulBoltFactory, parallelism?: number): BoltDeclarer;
  setBolt(id: string, biConsumer: BoltBiConsumer, ...fields: string[]): BoltDeclarer;
  setBolt(id: string, biConsumer: BoltBiConsumer, parallelism: number, ...fields: string[]): BoltDeclarer;
  setBolt(id: string, biConsumer: BoltBiConsumer, parallelism: number, fields: Fields | readonly string[]): BoltDeclarer;
  setBolt(id: string, source: BoltFactory | WindowedBoltFactory | StatefulBoltFactory | BoltBiConsumer | TaskSource<Bolt | BasicBolt>, ...rest: unknown[]): BoltDeclarer {
    const r = boltFactoryOf(id, source, rest);
    if (r.problem !== null) this.sink.problems.push(r.problem);
    const factory = r.factory ? wrapped(r.factory as BoltFactory) : refused;
    return new BoltDeclarer(this.add(id, 'bolt', factory, r.parallelism), this.sink);
  }

  private add(id: string, kind: 'spout' | 'bolt', factory: SpoutFactory | BoltFactory, parallelism: number): ComponentDef {
    if (!ID.test(id) || id.startsWith('__')) {
      this.sink.problems.push(`invalid component id "${id}": use letters, digits, "_", "." and "-" (ids starting with "__" are reserved)`);
    } else if (this.factories.has(id)) {
      this.sink.problems.push(`duplicate component id "${id}"`);
    }
    if (!Number.isInteger(parallelism) || parallelism < 1) {
      this.sink.problems.push(`component "${id}": parallelism must be an integer ≥ 1, got ${String(parallelism)}`);
    }
    const comp: ComponentDef = { id, kind, parallelism, streams: [], inputs: [], gpu: null, config: {} };
    this.components.push(comp);
    if (!this.factories.has(id)) this.factories.set(id, factory);
    return comp;
  }

  /**
   * Validates and builds the topology. Each component is instantiated once
   * here, only to ask it which streams it declares.
   */
  createTopology(config: Record<string, unknown> = {}): StormTopology {
    if (this.sink.problems.length > 0) throw new TopologyValidationError(`invalid topology: ${this.sink.problems.join('; ')}`);
    for (const c of this.components) {
      const instance = instantiate(c.id, this.factories.get(c.id)!);
      const declared = declaredShape(c.id, instance);
      c.streams = declared.streams;
      // Storm merges a component's own configuration under what its declarer adds.
      c.config = { ...declared.config, ...c.config };
      const core = instance instanceof StatefulBoltExecutor ? instance.bolt : instance;
      // The window and the state go into the definition: nimbus checks them against the message timeout and spout
      // pending bound, and describe shows them.
      if (core instanceof WindowingBolt) c.window = core.windowDef(c.id);
      if (core instanceof WindowingBolt && core.bolt instanceof JoinBolt) core.bolt.checkInputs(c.id, c.inputs);
      if (instance instanceof StatefulBoltExecutor) c.state = stateDefOf(c.id, core);
    }
    // A grouping declared through grouping(…, { type: 'custom' }) has no object behind it.
    for (const c of this.components) {
      for (const i of c.inputs) {
        if (i.grouping.type === 'custom' && !this.sink.customGroupings.has(subscriptionKey(c.id, i.component, i.stream))) {
          throw new TopologyValidationError(`bolt "${c.id}": a custom grouping on "${i.component}" stream "${i.stream}" needs customGrouping(component, stream, grouping)`, c.id);
        }
      }
    }
    const components = this.components.map((c) => ({ ...structuredClone(c), config: validateEntries(c.config, { allowUserKeys: true, where: `component "${c.id}" config` }) }));
    const factories = new Map(this.factories);
    if (components.some((c) => c.state)) addCheckpointing(components, factories);
    const def: TopologyDef = {
      ...(this.serializations.length > 0 && { serializations: this.serializations.map((r) => r.name) }),
      components,
      config: validateEntries(config, { allowUserKeys: true, where: 'topology config' }),
    };
    checkCrossKeys(def.config);
    validateTopology(def);
    return new StormTopology(def, factories, {
      customGroupings: new Map(this.sink.customGroupings),
      serializations: [...this.serializations],
      origin: callerFile(),
      endpoints: new Map(this.endpoints),
    });
  }
}

/**
 * The file that called into the SDK (createTopology's caller): the first frame of the call stack outside topology-sdk/,
 * read from V8's call sites (no parsing of stack text). For a compiled TypeScript module it is the compiled file, which
 * loads as well as its source.
 */
function callerFile(): string | null {
  const sdkDir = dirname(fileURLToPath(import.meta.url));
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  try {
    Error.prepareStackTrace = (_err, sites) => sites;
    Error.stackTraceLimit = 30;
    const sites = new Error().stack as unknown as NodeJS.CallSite[];
    for (const site of sites) {
      const name = site.getFileName();
      if (!name || name.startsWith('node:')) continue;
      const file = name.startsWith('file://') ? fileURLToPath(name) : name;
      if (!file.startsWith(sdkDir + sep)) return file;
    }
    return null;
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}

/** The stateful part of the definition: a stateful window's settings (checked, naming the component), or none. */
function stateDefOf(id: string, core: unknown): NonNullable<ComponentDef['state']> {
  return core instanceof WindowingBolt && core.bolt instanceof StatefulWindowedBolt ? core.bolt.stateDef(id) : { messageIdField: null, maxEventsInMemory: null };
}

/** A bolt factory whose windowed and stateful bolts come wrapped in the runtime's bolts (any other instance as it is). */
function wrapped(factory: BoltFactory | WindowedBoltFactory | StatefulBoltFactory): BoltFactory {
  return () => {
    const b = factory();
    if (b instanceof StatefulWindowedBolt) return new StatefulBoltExecutor(statefulWindowedExecutor(b));
    if (b instanceof StatefulBolt) return new StatefulBoltExecutor(b);
    if (b instanceof WindowedBolt) return new WindowedBoltExecutor(b);
    return b;
  };
}

/**
 * Storm's stateful wiring (TopologyBuilder with a stateful bolt): the checkpoint spout, one task, declared last so the
 * other components keep their task ids; every bolt declares the checkpoint stream and takes it from each component it
 * subscribes to (from the checkpoint spout in place of a spout), with all grouping; bolts that are not stateful are
 * wrapped in the forwarder that passes it on.
 */
function addCheckpointing(components: ComponentDef[], factories: Map<string, SpoutFactory | BoltFactory>): void {
  const spouts = new Set(components.filter((c) => c.kind === 'spout').map((c) => c.id));
  const stream = { id: CHECKPOINT_STREAM, fields: [...CHECKPOINT_FIELDS], direct: false };
  for (const c of components) {
    if (c.kind !== 'bolt') continue;
    c.streams.push({ ...stream, fields: [...stream.fields] });
    const sources = new Set(c.inputs.map((i) => (spouts.has(i.component) ? CHECKPOINT_COMPONENT : i.component)));
    for (const src of sources) c.inputs.push({ component: src, stream: CHECKPOINT_STREAM, grouping: { type: 'all' } });
    if (!c.state) {
      const inner = factories.get(c.id) as BoltFactory;
      factories.set(c.id, () => new CheckpointForwarder(inner() as ConstructorParameters<typeof CheckpointForwarder>[0]));
    }
  }
  components.push({ id: CHECKPOINT_COMPONENT, kind: 'spout', parallelism: 1, streams: [{ ...stream, fields: [...stream.fields] }], inputs: [], gpu: null, config: {} });
  factories.set(CHECKPOINT_COMPONENT, () => new CheckpointSpout());
}

function instantiate(id: string, factory: SpoutFactory | BoltFactory): ReturnType<SpoutFactory | BoltFactory> {
  let instance: ReturnType<SpoutFactory | BoltFactory>;
  try {
    instance = factory();
  } catch (err) {
    throw new TopologyValidationError(`component "${id}": its factory threw: ${(err as Error)?.message ?? String(err)}`, id);
  }
  if (!instance || typeof (instance as { declareOutputFields?: unknown }).declareOutputFields !== 'function') {
    throw new TopologyValidationError(`component "${id}": the factory did not return a Spout or Bolt`, id);
  }
  return instance;
}

/** What an instance of the component says about itself: its streams and its own configuration (getComponentConfiguration). */
function declaredShape(id: string, instance: ReturnType<SpoutFactory | BoltFactory>): { streams: StreamDef[]; config: Record<string, unknown> } {
  const declarer = new OutputFieldsDeclarer(id);
  instance.declareOutputFields(declarer);
  const own = typeof instance.getComponentConfiguration === 'function' ? instance.getComponentConfiguration() : null;
  if (own !== null && own !== undefined && (typeof own !== 'object' || Array.isArray(own))) {
    throw new TopologyValidationError(`component "${id}": getComponentConfiguration() must return an object of config keys or null, got ${Array.isArray(own) ? 'an array' : typeof own}`, id);
  }
  return { streams: declarer.result(), config: { ...own } };
}
