/**
 * The state benchmark's topology: sentences → split → count, fields grouping
 * on the word, acked, as fast as `topology.max.spout.pending` lets the spout go.
 * The count is kept one of two ways (`bench.state.impl`):
 * - `map`: a plain Bolt with a JavaScript Map — what a user writes without
 *   state, and loses on a crash; it acks each tuple at once;
 * - `state`: a StatefulBolt with a KeyValueState, checkpointed to
 *   `topology.state.provider` every `topology.state.checkpoint.interval.ms`;
 *   its acks wait for the commit.
 * Both anchor their output and ack their input; nothing else differs.
 */
import {
  BasicBolt,
  Bolt,
  Spout,
  StatefulBolt,
  TopologyBuilder,
  type BasicOutputCollector,
  type Conf,
  type KeyValueState,
  type OutputCollector,
  type OutputFieldsDeclarer,
  type SpoutOutputCollector,
  type TopologyContext,
  type TopologyModuleContext,
  type Tuple,
} from 'hstorm';

/** 1 000 distinct words, ten to a sentence. */
const WORDS = Array.from({ length: 1000 }, (_, i) => `word${i}`);

class SentenceSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private i = 0;

  override open(_conf: Conf, _ctx: TopologyContext, c: SpoutOutputCollector): void {
    this.collector = c;
  }

  nextTuple(): void {
    const n = this.i++;
    const words: string[] = [];
    for (let k = 0; k < 10; k++) words.push(WORDS[(n * 7 + k * 131) % WORDS.length]!);
    this.collector.emit([words.join(' ')], { messageId: n });
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['sentence']);
  }
}

class Split extends BasicBolt {
  execute(t: Tuple, out: BasicOutputCollector): void {
    for (const w of t.getString(0).split(' ')) out.emit([w]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word']);
  }
}

class MapCount extends Bolt {
  private readonly counts = new Map<string, number>();
  private out!: OutputCollector;

  override prepare(_c: Conf, _ctx: TopologyContext, out: OutputCollector): void {
    this.out = out;
  }

  execute(t: Tuple): void {
    const w = t.getString(0);
    const n = (this.counts.get(w) ?? 0) + 1;
    this.counts.set(w, n);
    this.out.emit([w, n], { anchors: t });
    this.out.ack(t);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word', 'count']);
  }
}

class StateCount extends StatefulBolt<KeyValueState<string, number>> {
  private counts!: KeyValueState<string, number>;
  private out!: OutputCollector;

  override prepare(_c: Conf, _ctx: TopologyContext, out: OutputCollector): void {
    this.out = out;
  }

  initState(state: KeyValueState<string, number>): void {
    this.counts = state;
  }

  execute(t: Tuple): void {
    const w = t.getString(0);
    const n = this.counts.get(w, 0) + 1;
    this.counts.put(w, n);
    this.out.emit([w, n], { anchors: t });
    this.out.ack(t);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word', 'count']);
  }
}

export default ({ config }: TopologyModuleContext) => {
  const stateful = config['bench.state.impl'] === 'state';
  const b = new TopologyBuilder();
  b.setSpout('sentences', () => new SentenceSpout(), 1);
  b.setBolt('split', () => new Split(), 2).shuffleGrouping('sentences');
  b.setBolt('count', stateful ? () => new StateCount() : () => new MapCount(), 2).fieldsGrouping('split', ['word']);
  return b.createTopology({ 'topology.workers': 2 });
};
