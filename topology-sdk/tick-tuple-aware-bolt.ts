/**
 * Storm's BaseTickTupleAwareRichBolt: a Bolt whose `execute` sends tick
 * tuples to `onTickTuple(tick)` (by default: nothing) and every other tuple
 * to `process(tuple)`. Ticks come when `topology.tick.tuple.freq.secs` is set
 * for the component (topology-wide, `addConfiguration`, or its
 * `getComponentConfiguration()`); a tick is never tracked, so it needs no
 * ack. `process` acks or fails its tuple as a Bolt's `execute` does.
 *
 * @example
 * class Counter extends TickTupleAwareBolt {
 *   private counts = new Map<string, number>();
 *   private collector!: OutputCollector;
 *   override prepare(_c: Conf, _x: TopologyContext, collector: OutputCollector) { this.collector = collector; }
 *   protected process(t: Tuple) { … this.collector.ack(t); }
 *   protected override onTickTuple() { for (const [w, n] of this.counts) this.collector.emit([w, n]); this.counts.clear(); }
 *   override getComponentConfiguration() { return TupleUtils.putTickFrequencyIntoComponentConfig(null, 5); }
 * }
 */
import { Bolt, type MaybePromise } from './components.js';
import type { Tuple } from './tuple.js';
import { TupleUtils } from './tuple-utils.js';

export abstract class TickTupleAwareBolt extends Bolt {
  execute(tuple: Tuple): MaybePromise<void> {
    return TupleUtils.isTick(tuple) ? this.onTickTuple(tuple) : this.process(tuple);
  }

  /** One tick tuple (its one value, field `rate_secs`, is the period). Does nothing unless overridden. */
  protected onTickTuple(_tuple: Tuple): MaybePromise<void> {}

  /** One tuple that is not a tick: ack or fail it through the collector (a throw fails it). */
  protected abstract process(tuple: Tuple): MaybePromise<void>;
}
