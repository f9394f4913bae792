/**
 * What `setSpout` and `setBolt` take, told apart at run time (JavaScript has
 * no static types to pick an overload by), and the factory each becomes:
 *
 * - a factory, `() => new SplitBolt()`: hstorm's way, called once per task;
 * - Storm 2's lambdas: for a spout a supplier, `() => value`, told from a
 *   factory by what it returns (a spout, or a value to emit — so it is called
 *   once when the topology is built, and that first value is the first the
 *   spout emits in that process; undefined or a bolt is refused, being what a
 *   slip in a factory returns); for a bolt `(tuple, collector) => …` and
 *   `(tuple) => …`, told from a factory by the parameters they declare;
 * - a task source: an object that makes its own tasks (`[NEW_TASK]()`), as
 *   hstorm/testing's FeederSpout — which, as Storm's, is also reached from the
 *   process that submits the topology: a local endpoint (`[CONNECT_LOCAL]`),
 *   connected by LocalCluster.submitTopology.
 *
 * Anything else — a component instance, a class — is refused with the form
 * that works, where Storm's habit (`setBolt("x", new XBolt())`) would have put it.
 */
import type { BasicBolt, Bolt, Spout } from '../components.js';
import { TopologyValidationError } from '../../common/errors.js';
import { fieldNames, type Fields } from '../fields.js';
import type { SerializationRegistration } from '../serialization.js';
import { LambdaBiConsumerBolt, LambdaConsumerBolt, LambdaSpout, type BoltBiConsumer, type BoltConsumer, type SpoutSupplier } from './lambda-components.js';

/** The method of a task source: a new component for one task. */
export const NEW_TASK = Symbol.for('hstorm.newTask');
/** The method of a local endpoint: connects it to its tasks through `dir`; returns topology config its tasks read. */
export const CONNECT_LOCAL = Symbol.for('hstorm.connectLocal');

/** An object that makes the component of each task itself (FeederSpout). */
export interface TaskSource<T> {
  [NEW_TASK](): T;
}

/** Where a local endpoint's tasks and the endpoint meet, as LocalCluster.submitTopology sets it up. */
export interface LocalConnection {
  /** The component the endpoint was set as. */
  componentId: string;
  /** A directory for this component of this submission, readable by every worker on this machine. */
  dir: string;
  /** The classes the topology registered (registerSerialization): how the values fed travel. */
  serializations: readonly SerializationRegistration[];
}

/** A task source that the submitting process talks to (FeederSpout). */
export interface LocalEndpoint {
  [CONNECT_LOCAL](connection: LocalConnection): Record<string, unknown>;
}

export function isLocalEndpoint(x: unknown): x is LocalEndpoint {
  return typeof x === 'object' && x !== null && typeof (x as Partial<LocalEndpoint>)[CONNECT_LOCAL] === 'function';
}

function isTaskSource<T>(x: unknown): x is TaskSource<T> {
  return typeof x === 'object' && x !== null && typeof (x as Partial<TaskSource<T>>)[NEW_TASK] === 'function';
}

/** A class: calling it without `new` throws, so it cannot be a factory. */
function isClass(x: unknown): boolean {
  return typeof x === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(x));
}

function isSpoutLike(x: unknown): x is Spout {
  return typeof x === 'object' && x !== null && typeof (x as Partial<Spout>).nextTuple === 'function' && typeof (x as Partial<Spout>).declareOutputFields === 'function';
}

function nameOf(x: unknown): string {
  const ctor = typeof x === 'object' && x !== null ? (x as { constructor?: { name?: unknown } }).constructor : undefined;
  return typeof ctor?.name === 'string' && ctor.name !== 'Object' ? `an instance of ${ctor.name}` : typeof x === 'object' ? 'an object' : typeof x;
}

/** The result: a factory for the builder, or the reason there is none. */
export type Resolved<F> = { factory: F; problem: null } | { factory: null; problem: string };

/** setSpout's second argument as a factory: a factory as it is, a supplier wrapped in a LambdaSpout, a task source's own. */
export function spoutFactoryOf(id: string, source: unknown): Resolved<() => Spout> {
  if (isTaskSource<Spout>(source)) return { factory: () => source[NEW_TASK](), problem: null };
  if (isClass(source)) {
    const name = (source as { name: string }).name;
    return { factory: null, problem: `component "${id}": setSpout takes a factory, not the class ${name}: write setSpout("${id}", () => new ${name}(…))` };
  }
  if (typeof source !== 'function') {
    return {
      factory: null,
      problem: `component "${id}": setSpout got ${nameOf(source)}; hstorm makes a spout per task with a factory: write setSpout("${id}", () => new MySpout(…)) (or a supplier, () => value, for Storm's lambda spout)`,
    };
  }
  const fn = source as () => unknown;
  // The value a supplier gave when it was told from a factory: the first task of this process emits it first.
  let kept: LambdaSpout | null = null;
  let called = false;
  const factory = (): Spout => {
    if (kept) {
      const k = kept;
      kept = null;
      return k;
    }
    const made = fn();
    if (isSpoutLike(made)) return made;
    // What a slip gives — a factory that forgot its `return`, or made a bolt — is refused, never emitted as a value.
    if (made === undefined) {
      throw new TopologyValidationError(
        `setSpout("${id}", fn): fn returned undefined; a factory returns a spout (a missing \`return\`?), and a supplier (Storm's lambda spout) a value to emit, or null when it has none now`,
        id,
      );
    }
    if (typeof made === 'object' && made !== null && typeof (made as { declareOutputFields?: unknown }).declareOutputFields === 'function') {
      throw new TopologyValidationError(`setSpout("${id}", fn): fn returned ${nameOf(made)}, a component but not a spout (no nextTuple)`, id);
    }
    const lambda = new LambdaSpout(fn as SpoutSupplier, made);
    // The first call is the builder's (createTopology asks each component its streams): its spout goes to the first task.
    if (!called) kept = lambda;
    called = true;
    return lambda;
  };
  return { factory, problem: null };
}

type AnyBolt = Bolt | BasicBolt | object;

/**
 * setBolt's arguments after the id: a factory and a parallelism (hstorm's), or Storm's lambda bolts — `(tuple,
 * collector) => …` with an optional parallelism and the fields it emits, or `(tuple) => …` with an optional
 * parallelism.
 */
export function boltFactoryOf(id: string, source: unknown, rest: readonly unknown[]): Resolved<() => AnyBolt> & { parallelism: number } {
  // A number (or an explicit undefined) first is the parallelism; what follows, Storm's output fields.
  const [first, ...after] = rest;
  const parallelism = typeof first === 'number' ? first : 1;
  const tail = typeof first === 'number' || (first === undefined && rest.length > 0) ? after : rest;
  const refuse = (problem: string) => ({ factory: null, problem, parallelism: 1 });
  if (isTaskSource<AnyBolt>(source)) return { factory: () => source[NEW_TASK](), problem: null, parallelism };
  if (isClass(source)) {
    const name = (source as { name: string }).name;
    return refuse(`component "${id}": setBolt takes a factory, not the class ${name}: write setBolt("${id}", () => new ${name}(…))`);
  }
  if (typeof source !== 'function') {
    return refuse(
      `component "${id}": setBolt got ${nameOf(source)}; hstorm makes a bolt per task with a factory: write setBolt("${id}", () => new MyBolt(…)) (or Storm's lambda bolts, (tuple, collector) => … and (tuple) => …)`,
    );
  }
  const fn = source as (...args: unknown[]) => unknown;
  const where = `component "${id}": setBolt`;
  if (fn.length >= 2) {
    let fields: string[];
    try {
      fields = tail.length === 1 && typeof tail[0] !== 'string' ? [...fieldNames(tail[0] as Fields | readonly string[], where)] : [...fieldNames(tail as readonly string[], where)];
    } catch (err) {
      return refuse((err as Error).message);
    }
    return { factory: () => new LambdaBiConsumerBolt(fn as BoltBiConsumer, fields), problem: null, parallelism };
  }
  if (tail.length > 0) {
    const form = fn.length === 1 ? "a consumer, (tuple) => …, emits nothing (Storm's)" : 'a factory makes a bolt that declares its own streams (declareOutputFields)';
    return refuse(`${where}("${id}", …) was given output fields, but ${form}; fields are for a lambda bolt (tuple, collector) => …`);
  }
  if (fn.length === 1) return { factory: () => new LambdaConsumerBolt(fn as BoltConsumer), problem: null, parallelism };
  return { factory: fn as () => AnyBolt, problem: null, parallelism };
}
