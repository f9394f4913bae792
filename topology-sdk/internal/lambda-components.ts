/**
 * Storm 2's lambda components (org.apache.storm.lambda), which
 * `TopologyBuilder.setSpout(id, supplier)` and `setBolt(id, (tuple, collector)
 * => …)` / `setBolt(id, (tuple) => …)` build:
 *
 * - LambdaSpout: each `nextTuple` calls the supplier and emits what it
 *   returns as the one value of field `lambda`, untracked; nothing when it
 *   returns null or undefined (Storm's LambdaSpout);
 * - LambdaBiConsumerBolt: a BasicBolt whose `execute` is the lambda, with the
 *   basic collector (anchored emits, acked on return), declaring the fields
 *   given to setBolt (Storm's LambdaBiConsumerBolt);
 * - LambdaConsumerBolt: a BasicBolt that calls the lambda with the tuple and
 *   emits nothing (Storm's LambdaConsumerBolt).
 */
import { BasicBolt, Spout, type BasicOutputCollector, type Conf, type MaybePromise, type SpoutOutputCollector } from '../components.js';
import type { TopologyContext } from '../context.js';
import type { OutputFieldsDeclarer } from '../output-declarer.js';
import type { Tuple } from '../tuple.js';

/** Storm's LambdaSpout's one field. */
export const LAMBDA_FIELD = 'lambda';

/** A value for each call of a spout's nextTuple (Storm's SerializableSupplier); null or undefined: nothing now. */
export type SpoutSupplier = () => unknown;
/** A basic bolt's execute as a lambda (Storm's SerializableBiConsumer<Tuple, BasicOutputCollector>). */
export type BoltBiConsumer = (tuple: Tuple, collector: BasicOutputCollector) => MaybePromise<void>;
/** A bolt that only consumes (Storm's SerializableConsumer<Tuple>). */
export type BoltConsumer = (tuple: Tuple) => MaybePromise<void>;

/** Marks "no value kept yet": a supplier may return undefined itself. */
const NONE = Symbol('none');

export class LambdaSpout extends Spout {
  private collector!: SpoutOutputCollector;

  /** `first`: a value already taken from the supplier (the builder calls it once to tell it from a factory), emitted first. */
  constructor(
    private readonly supplier: SpoutSupplier,
    private first: unknown = NONE,
  ) {
    super();
  }

  override open(_conf: Conf, _context: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
  }

  nextTuple(): void {
    let v = this.first;
    if (v === NONE) v = this.supplier();
    else this.first = NONE;
    if (v !== null && v !== undefined) this.collector.emit([v]);
  }

  declareOutputFields(declarer: OutputFieldsDeclarer): void {
    declarer.declare([LAMBDA_FIELD]);
  }
}

export class LambdaBiConsumerBolt extends BasicBolt {
  constructor(
    private readonly biConsumer: BoltBiConsumer,
    private readonly fields: readonly string[],
  ) {
    super();
  }

  execute(tuple: Tuple, collector: BasicOutputCollector): MaybePromise<void> {
    return this.biConsumer(tuple, collector);
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    // Storm declares the default stream with the fields given, none included.
    declarer.declare(this.fields);
  }
}

export class LambdaConsumerBolt extends BasicBolt {
  constructor(private readonly consumer: BoltConsumer) {
    super();
  }

  execute(tuple: Tuple): MaybePromise<void> {
    return this.consumer(tuple);
  }
}
