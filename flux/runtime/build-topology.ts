/**
 * A Flux plan → a StormTopology, through the SDK's TopologyBuilder as a
 * module written by hand would: the classes of `topology.kryo.register`
 * registered (registerSerialization), each spout and bolt a factory that makes a
 * fresh object graph per task, its declarer given the per-component config,
 * GPU request and loads, and each stream a grouping call on the receiving
 * bolt's declarer.
 */
import { TopologyBuilder, TopologyValidationError, type BoltDeclarer, type ClassOf, type CustomStreamGrouping, type Serializer, type SpoutDeclarer, type StormTopology } from '../../topology-sdk/index.js';
import { FluxClassError } from './errors.js';
import { Instantiator, resolveClass, type ModuleNamespace } from './instantiate.js';
import { formatPosition, type FluxPlan, type SerializationPlan, type StreamPlan, type VertexPlan } from './plan.js';

/** What the builder's factories must return, seen as the Flux runtime uses it. */
interface Component {
  declareOutputFields(declarer: unknown): void;
  getComponentConfiguration?: () => Record<string, unknown> | null | undefined;
}

/**
 * A factory whose first call hands out the object made to read its component
 * config (createTopology asks one object for its streams and drops it), and
 * every later call — one per task — a fresh one.
 */
function vertexFactory(plan: FluxPlan, modules: readonly ModuleNamespace[], v: VertexPlan, kind: string): { factory: () => Component; first: Component } {
  const make = () => new Instantiator(plan, modules).make(v, `${kind} "${v.id}"`) as Component;
  let first: Component | null = make();
  const probe = first;
  return {
    first: probe,
    factory: () => {
      const obj = first ?? make();
      first = null;
      return obj;
    },
  };
}

function configure(d: SpoutDeclarer | BoltDeclarer, v: VertexPlan, probe: Component): void {
  // Storm merges a component's own getComponentConfiguration() first; the Flux file's `config` wins over it.
  const own = typeof probe.getComponentConfiguration === 'function' ? probe.getComponentConfiguration() : null;
  for (const [k, value] of Object.entries({ ...own, ...v.config })) d.addConfiguration(k, value);
  if (v.gpu) d.gpu(v.gpu);
  if (v.cpuLoad !== null) d.setCPULoad(v.cpuLoad);
  if (v.memoryLoad !== null) d.setMemoryLoad(v.memoryLoad);
  // Storm runs numTasks tasks on parallelism executors; a worker here runs every task as its own executor, so the
  // component gets numTasks of both (setNumTasks, as a module's declarer would).
  if (v.numTasks !== null && v.numTasks !== v.parallelism) d.setNumTasks(v.numTasks);
}

function subscribe(d: BoltDeclarer, s: StreamPlan, plan: FluxPlan, modules: readonly ModuleNamespace[]): void {
  const { from, streamId: stream } = s;
  switch (s.grouping.type) {
    case 'SHUFFLE':
      d.shuffleGrouping(from, stream);
      return;
    // Routed as a shuffle, as in Storm ("currently, none groupings are equivalent to shuffle groupings").
    case 'NONE':
      d.noneGrouping(from, stream);
      return;
    case 'FIELDS':
      d.fieldsGrouping(from, stream, s.grouping.fields);
      return;
    case 'ALL':
      d.allGrouping(from, stream);
      return;
    case 'GLOBAL':
      d.globalGrouping(from, stream);
      return;
    case 'DIRECT':
      d.directGrouping(from, stream);
      return;
    case 'LOCAL_OR_SHUFFLE':
      d.localOrShuffleGrouping(from, stream);
      return;
    case 'TWO_CHOICE':
      d.twoChoiceGrouping(from, stream);
      return;
    case 'LOAD_AWARE_SHUFFLE':
      d.loadAwareShuffleGrouping(from, stream);
      return;
    case 'CUSTOM': {
      // The compiler refuses CUSTOM without customClass.
      const custom = s.grouping.custom!;
      const grouping = new Instantiator(plan, modules).make(custom, `customClass of stream ${from} → ${s.to}`) as Partial<CustomStreamGrouping>;
      if (typeof grouping?.prepare !== 'function' || typeof grouping.chooseTasks !== 'function') {
        throw new FluxClassError(
          `${custom.className.spec} is not a CustomStreamGrouping: it needs prepare(context, stream, targetTasks) and chooseTasks(taskId, values)`,
          custom.at,
          `${custom.key}.className`,
          custom.className.spec,
        );
      }
      d.customGrouping(from, stream, grouping as CustomStreamGrouping);
      return;
    }
  }
}

/** One entry of `topology.kryo.register`: the class, and its serializer made with no arguments (or given as an object). */
function register(b: TopologyBuilder, s: SerializationPlan, modules: readonly ModuleNamespace[]): void {
  const Class = resolveClass(s.className, modules, s.at, s.key);
  if (typeof Class !== 'function' || typeof (Class as { prototype?: unknown }).prototype !== 'object') {
    throw new FluxClassError(`${s.className.spec} is not a class (it is ${typeof Class}): topology.kryo.register lists the classes whose instances travel between workers`, s.at, s.key, s.className.spec);
  }
  let serializer: Partial<Serializer> | null = null;
  if (s.serializer) {
    const Ser = resolveClass(s.serializer, modules, s.at, s.key);
    serializer = (typeof Ser === 'function' ? new (Ser as new () => unknown)() : Ser) as Partial<Serializer> | null;
    if (typeof serializer?.write !== 'function' || typeof serializer.read !== 'function') {
      throw new FluxClassError(`${s.serializer.spec} is not a serializer of ${s.className.spec}: it needs write(value) and read(data)`, s.at, s.key, s.serializer.spec);
    }
  }
  b.registerSerialization(Class as ClassOf<unknown>, serializer as Serializer | null);
}

/**
 * Builds the topology of a compiled Flux file. `modules` are the namespaces of
 * the modules its classNames name, in the plan's order. The topology config
 * of the run does not shape it: a Flux file takes its values from variables
 * when it is compiled, so every process builds one shape.
 */
export function buildFluxTopology(plan: FluxPlan, modules: readonly ModuleNamespace[]): StormTopology {
  const b = new TopologyBuilder();
  for (const s of plan.serializations) register(b, s, modules);
  const at = new Map<string, VertexPlan>();
  for (const v of plan.spouts) {
    const { factory, first } = vertexFactory(plan, modules, v, 'spout');
    configure(b.setSpout(v.id, factory as () => never, v.parallelism), v, first);
    at.set(v.id, v);
  }
  const bolts = new Map<string, BoltDeclarer>();
  for (const v of plan.bolts) {
    const { factory, first } = vertexFactory(plan, modules, v, 'bolt');
    const d = b.setBolt(v.id, factory as () => never, v.parallelism);
    configure(d, v, first);
    bolts.set(v.id, d);
    at.set(v.id, v);
  }
  for (const s of plan.streams) subscribe(bolts.get(s.to)!, s, plan, modules);
  try {
    return b.createTopology(plan.config);
  } catch (err) {
    // The builder names the component; the Flux file's reader wants the line where it is written.
    const v = err instanceof TopologyValidationError && err.component !== undefined ? at.get(err.component) : undefined;
    if (v) throw new TopologyValidationError(`${formatPosition(v.at)} (${v.id}): ${err instanceof Error ? err.message : String(err)}`, v.id);
    throw err;
  }
}
