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
  type TopologyDef,
} from '../common/topology-def.js';
import { TopologyValidationError } from '../common/errors.js';
import { checkCrossKeys, checkKey, validateEntries } from '../common/config/config.js';
import { OutputFieldsDeclarer } from './output-declarer.js';
import { Grouping } from './grouping.js';
import { fieldNames, type Fields } from './fields.js';
import type { BoltFactory, SpoutFactory } from './components.js';
import { validateTopology } from './validate-topology.js';
import { WindowedBolt } from './windowed-bolt.js';
import { StatefulBolt, type StatefulBoltFactory } from './stateful-bolt.js';
import { WindowedBoltExecutor } from './internal/windowed-bolt-executor.js';
import { StatefulBoltExecutor } from './internal/stateful-bolt-executor.js';
import { CheckpointForwarder } from './internal/checkpoint-forwarder.js';
import { CheckpointSpout } from './internal/checkpoint-spout.js';
import { statefulWindowedExecutor } from './internal/stateful-windowed-bolt-executor.js';
import { WindowingBolt } from './internal/windowing-bolt.js';
import { StatefulWindowedBolt } from './stateful-windowed-bolt.js';

/** A factory of windowed bolts: the builder wraps each in the runtime's windowing bolt, as Storm's setBolt does. */
export type WindowedBoltFactory = () => WindowedBolt;

const ID = /^[A-Za-z0-9_.-]+$/;

export class StormTopology {
  constructor(
    readonly def: TopologyDef,
    readonly factories: ReadonlyMap<string, SpoutFactory | BoltFactory>,
  ) {}
}

abstract class ComponentDeclarer<Self> {
  constructor(protected readonly comp: ComponentDef) {}

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
  private readonly problems: string[] = [];

  setSpout(id: string, factory: SpoutFactory, parallelism = 1): SpoutDeclarer {
    return new SpoutDeclarer(this.add(id, 'spout', factory, parallelism));
  }

  /**
   * A bolt, a windowed bolt (wrapped in the windowing bolt), or a stateful bolt (wrapped in the stateful executor; with
   * one in the topology, the builder adds the checkpoint spout and wires its stream through every bolt).
   */
  setBolt(id: string, factory: BoltFactory | WindowedBoltFactory | StatefulBoltFactory, parallelism = 1): BoltDeclarer {
    return new BoltDeclarer(this.add(id, 'bolt', typeof factory === 'function' ? wrapped(factory) : factory, parallelism));
  }

  private add(id: string, kind: 'spout' | 'bolt', factory: SpoutFactory | BoltFactory, parallelism: number): ComponentDef {
    if (!ID.test(id) || id.startsWith('__')) {
      this.problems.push(`invalid component id "${id}": use letters, digits, "_", "." and "-" (ids starting with "__" are reserved)`);
    } else if (this.factories.has(id)) {
      this.problems.push(`duplicate component id "${id}"`);
    }
    if (!Number.isInteger(parallelism) || parallelism < 1) {
      this.problems.push(`component "${id}": parallelism must be an integer ≥ 1, got ${String(parallelism)}`);
    }
    if (typeof factory !== 'function') this.problems.push(`component "${id}": the factory must be a function returning a new ${kind}`);
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
    if (this.problems.length > 0) throw new TopologyValidationError(`invalid topology: ${this.problems.join('; ')}`);
    for (const c of this.components) {
      const instance = instantiate(c.id, this.factories.get(c.id)!);
      c.streams = declaredStreams(c.id, instance);
      const core = instance instanceof StatefulBoltExecutor ? instance.bolt : instance;
      // The window and the state go into the definition: nimbus checks them against the message timeout and spout
      // pending bound, and describe shows them.
      if (core instanceof WindowingBolt) c.window = core.windowDef(c.id);
      if (instance instanceof StatefulBoltExecutor) c.state = stateDefOf(c.id, core);
    }
    const components = this.components.map((c) => ({ ...structuredClone(c), config: validateEntries(c.config, { allowUserKeys: true, where: `component "${c.id}" config` }) }));
    const factories = new Map(this.factories);
    if (components.some((c) => c.state)) addCheckpointing(components, factories);
    const def: TopologyDef = { components, config: validateEntries(config, { allowUserKeys: true, where: 'topology config' }) };
    checkCrossKeys(def.config);
    validateTopology(def);
    return new StormTopology(def, factories);
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

function declaredStreams(id: string, instance: ReturnType<SpoutFactory | BoltFactory>) {
  const declarer = new OutputFieldsDeclarer(id);
  instance.declareOutputFields(declarer);
  return declarer.result();
}
