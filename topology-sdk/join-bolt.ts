/**
 * Storm's JoinBolt (org.apache.storm.bolt.JoinBolt): a windowed bolt that
 * joins the streams it takes, in each window, on fields — inner and left
 * joins chained from a first stream, which is the left side — and emits the
 * fields `select` names, one tuple per joined record, anchored to the tuples
 * it joined. Streams are told apart by their source component
 * (`Selector.SOURCE`, the default) or their stream id (`Selector.STREAM`).
 * The join is a hash join: each window's non-first streams are hashed on
 * their keys once, then probed (internal/hash-join.ts has the rules).
 *
 * @example
 * // SQL: select genderSpout.id, ageSpout.id, gender, age from genderSpout inner join ageSpout on ageSpout.id = genderSpout.id
 * builder.setBolt('joiner', () =>
 *   new JoinBolt('genderSpout', 'id')
 *     .join('ageSpout', 'id', 'genderSpout')
 *     .select('genderSpout:id, ageSpout:id, gender, age')
 *     .withTumblingWindow(Duration.seconds(10)))
 *   .fieldsGrouping('genderSpout', ['id'])
 *   .fieldsGrouping('ageSpout', ['id']);
 */
import type { Conf, OutputCollector } from './components.js';
import type { TopologyContext } from './context.js';
import type { OutputFieldsDeclarer } from './output-declarer.js';
import type { TupleWindow } from './tuple-window.js';
import type { Tuple } from './tuple.js';
import { WindowedBolt } from './windowed-bolt.js';
import type { InputDef, WindowDef } from '../common/topology-def.js';
import { JoinValidationError } from '../common/errors.js';
import { FieldSelector } from './internal/join-fields.js';
import { hashJoin, type JoinPlan, type JoinStep, type JoinType } from './internal/hash-join.js';

/** How JoinBolt tells its input streams apart (Storm's JoinBolt.Selector): by source component or by stream id. */
export const Selector = Object.freeze({ SOURCE: 'SOURCE', STREAM: 'STREAM' } as const);
export type Selector = (typeof Selector)[keyof typeof Selector];

interface JoinClause {
  stream: string;
  key: FieldSelector;
  /** Absent for the first stream. */
  type: JoinType | null;
  prior: string | null;
}

export class JoinBolt extends WindowedBolt {
  /** Storm's `JoinBolt.Selector.SOURCE` / `.STREAM`. */
  static readonly Selector = Selector;

  private readonly selector: Selector;
  private readonly clauses: JoinClause[] = [];
  private selected: FieldSelector[] | null = null;
  private outputStream: string | null = null;
  private collector: OutputCollector | null = null;
  private plan: JoinPlan | null = null;

  /** Storm's `new JoinBolt(sourceId, field)`: the first stream, by its source component, joined on `field` ("x.y" nests). */
  constructor(sourceId: string, field: string);
  /** Storm's `new JoinBolt(Selector.SOURCE | Selector.STREAM, id, field)`. */
  constructor(type: Selector, srcOrStreamId: string, field: string);
  constructor(a: string, b: string, c?: string) {
    super();
    const [type, id, field] = c === undefined ? [Selector.SOURCE, a, b] : [a, b, c];
    if (type !== Selector.SOURCE && type !== Selector.STREAM) {
      throw new JoinValidationError(`new JoinBolt(${JSON.stringify(type)}, …): the selector must be Selector.SOURCE or Selector.STREAM`);
    }
    this.selector = type;
    checkName(id, 'new JoinBolt');
    this.clauses.push({ stream: id, key: FieldSelector.ofStream(id, field, `new JoinBolt(…, "${id}", …)`), type: null, prior: null });
  }

  /** Inner join: `from prior inner join newStream on newStream.field = prior.<its join field>`. `prior` must be in the join already. */
  join(newStream: string, field: string, priorStream: string): this {
    return this.add(newStream, field, priorStream, 'inner');
  }

  /** Left join: every record of the join so far, extended by `newStream`'s matches or by none (its fields null). */
  leftJoin(newStream: string, field: string, priorStream: string): this {
    return this.add(newStream, field, priorStream, 'left');
  }

  /**
   * The output fields, comma-separated: `"field, stream:field, outer.inner, stream:outer.inner"`; each is also the
   * declared name of its output field, as written (Storm's). An unqualified field comes from the first joined tuple
   * that has it; a missing one is null.
   */
  select(commaSeparatedKeys: string): this {
    if (typeof commaSeparatedKeys !== 'string') throw new JoinValidationError(`JoinBolt.select(${String(commaSeparatedKeys)}): give the fields as one comma-separated string`);
    this.selected = commaSeparatedKeys.split(',').map((k) => FieldSelector.parse(k, 'JoinBolt.select'));
    return this;
  }

  /** Emit on `streamName` instead of the default stream. */
  withOutputStream(streamName: string): this {
    checkName(streamName, 'JoinBolt.withOutputStream');
    this.outputStream = streamName;
    return this;
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    // No select: windowDef, asked next by the builder, refuses it naming the component.
    const names = (this.selected ?? []).map((f) => f.outputName);
    if (this.outputStream !== null) declarer.declareStream(this.outputStream, names);
    else declarer.declare(names);
  }

  /** The window, once the join itself is checked (the builder and the worker both ask, naming the component). */
  override windowDef(component: string): WindowDef {
    this.planFor(component);
    return super.windowDef(component);
  }

  /**
   * The builder's check of the subscriptions (TopologyBuilder.createTopology): every input is a stream of the join
   * and every stream of the join is an input. Storm finds the first at run time, as a failing window, and never the
   * second (the join just stays empty).
   */
  checkInputs(component: string, inputs: readonly InputDef[]): void {
    const names = new Set(inputs.map((i) => (this.selector === Selector.SOURCE ? i.component : i.stream)));
    const joined = this.clauses.map((c) => c.stream);
    const what = this.selector === Selector.SOURCE ? 'source component' : 'stream';
    const stray = [...names].filter((n) => !joined.includes(n));
    if (stray.length > 0) {
      throw new JoinValidationError(
        `JoinBolt "${component}" takes ${what} ${stray.map((s) => `"${s}"`).join(', ')}, which the join does not name (it joins ${joined.join(', ')} by ${what}); join it, or do not subscribe to it`,
        component,
      );
    }
    const missing = joined.filter((n) => !names.has(n));
    if (missing.length > 0) {
      throw new JoinValidationError(
        `JoinBolt "${component}" joins ${what} ${missing.map((s) => `"${s}"`).join(', ')}, but subscribes to no such input (its inputs: ${[...names].join(', ') || 'none'}); subscribe to it with a grouping${this.selector === Selector.SOURCE ? '' : ', or build the JoinBolt with Selector.SOURCE to join by component'}`,
        component,
      );
    }
  }

  override prepare(_conf: Conf, context: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
    this.plan = this.planFor(context.componentId);
  }

  execute(window: TupleWindow): void {
    const collector = this.collector!;
    const stream = this.outputStream ?? undefined;
    // Each result anchored to the tuples it joined, not to the whole window (Storm's explicit anchoring).
    hashJoin(this.plan!, window.get(), (values, anchors) => collector.emit(values, { stream, anchors }));
  }

  private add(newStream: string, field: string, priorStream: string, type: JoinType): this {
    const call = `JoinBolt.${type === 'inner' ? 'join' : 'leftJoin'}("${newStream}", "${field}", "${priorStream}")`;
    checkName(newStream, call);
    if (this.clauses.some((c) => c.stream === newStream)) throw new JoinValidationError(`${call}: "${newStream}" is already part of the join; a stream joins once`);
    if (!this.clauses.some((c) => c.stream === priorStream)) {
      throw new JoinValidationError(`${call}: stream "${priorStream}" was not declared before (the join has ${this.clauses.map((c) => c.stream).join(', ')}); join streams in order, each to one already joined`);
    }
    this.clauses.push({ stream: newStream, key: FieldSelector.ofStream(newStream, field, call), type, prior: priorStream });
    return this;
  }

  /** The join as hash-join.ts runs it; throws (naming `component`) what cannot work. */
  private planFor(component: string): JoinPlan {
    if (this.selected === null) {
      throw new JoinValidationError(`JoinBolt "${component}": no output fields; call select("field, stream:field, …")`, component);
    }
    const streams = this.clauses.map((c) => c.stream);
    const slotsNamed = (name: string) => streams.flatMap((s, i) => (s.toLowerCase() === name.toLowerCase() ? [i] : []));
    for (const f of this.selected) {
      if (f.stream !== null && slotsNamed(f.stream).length === 0) {
        throw new JoinValidationError(`JoinBolt "${component}": select names "${f.outputName}", but "${f.stream}" is not part of the join (${streams.join(', ')})`, component);
      }
    }
    const steps: JoinStep[] = this.clauses.slice(1).map((c, i) => {
      const prior = this.clauses.find((p) => p.stream === c.prior)!;
      return { slot: i + 1, type: c.type!, key: c.key, priorKey: new FieldSelector(prior.stream, prior.key.path, prior.key.outputName), priorSlots: slotsNamed(prior.stream) };
    });
    const projections = this.selected.map((f) => ({
      readers: (f.stream === null ? streams.map((_s, i) => i) : slotsNamed(f.stream)).map((slot) => ({ slot, field: new FieldSelector(f.stream, f.path, f.outputName) })),
    }));
    const bySource = this.selector === Selector.SOURCE;
    return {
      streams,
      slotOf: new Map(streams.map((s, i) => [s, i])),
      steps,
      projections,
      nameOf: bySource ? (t: Tuple) => t.sourceComponent : (t: Tuple) => t.sourceStreamId,
    };
  }
}

function checkName(name: unknown, call: string): void {
  if (typeof name !== 'string' || name === '' || name.startsWith('__')) {
    throw new JoinValidationError(`${call}: ${JSON.stringify(name)} is not a stream or component id (a non-empty string, not starting with "__")`);
  }
}
