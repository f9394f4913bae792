/**
 * Storm's BaseStatefulBolt (IStatefulBolt): a bolt whose state the runtime
 * saves at every checkpoint and gives back after a crash, a kill or a
 * resubmit (docs/state.md). The runtime calls `prepare`, then — once the
 * checkpoint spout's recovery has run — `initState` with the last committed
 * state, then `execute` for each tuple; tuples that arrive before
 * `initState` are held, not lost.
 *
 * The guarantee is Storm's: at least once. The runtime holds the acks of the
 * input tuples until the checkpoint that saved their updates has committed;
 * a crash before that rolls the state back and the spouts replay them. So:
 * `collector.ack` each input after updating the state, and anchor every emit
 * (`{ anchors: tuple }`) — in a topology with a stateful bolt an emit without
 * `anchors` throws (pass `anchors: []` to emit unanchored on purpose).
 *
 * @example
 * class WordCount extends StatefulBolt<KeyValueState<string, number>> {
 *   private counts!: KeyValueState<string, number>;
 *   private out!: OutputCollector;
 *   override prepare(_c: Conf, _ctx: TopologyContext, out: OutputCollector) { this.out = out; }
 *   initState(state: KeyValueState<string, number>) { this.counts = state; }
 *   execute(t: Tuple) {
 *     const word = t.getStringByField('word');
 *     const n = this.counts.get(word, 0) + 1;
 *     this.counts.put(word, n);
 *     this.out.emit([word, n], { anchors: t });
 *     this.out.ack(t);
 *   }
 *   override declareOutputFields(d: OutputFieldsDeclarer) { d.declare(['word', 'count']); }
 * }
 */
import type { Conf, MaybePromise, OutputCollector } from './components.js';
import type { TopologyContext } from './context.js';
import type { OutputFieldsDeclarer } from './output-declarer.js';
import type { KeyValueState } from './state.js';
import type { Tuple } from './tuple.js';

export abstract class StatefulBolt<S = KeyValueState> {
  prepare(_conf: Conf, _context: TopologyContext, _collector: OutputCollector): MaybePromise<void> {}
  /** Called once, after prepare and before the first execute, with the last committed state (empty the first time). */
  abstract initState(state: S): MaybePromise<void>;
  abstract execute(tuple: Tuple): MaybePromise<void>;
  /** Storm's hooks: called just before the runtime prepares the state of transaction `txid`… */
  prePrepare(_txid: number): MaybePromise<void> {}
  /** …commits it… */
  preCommit(_txid: number): MaybePromise<void> {}
  /** …or rolls the state back to the last committed transaction. */
  preRollback(): MaybePromise<void> {}
  cleanup(): MaybePromise<void> {}
  declareOutputFields(_declarer: OutputFieldsDeclarer): void {}
}

/** A factory of stateful bolts: the builder wraps each in the runtime's stateful executor and adds the checkpoint spout. */
export type StatefulBoltFactory = () => StatefulBolt<never>;
