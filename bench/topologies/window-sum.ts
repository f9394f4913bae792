/**
 * The windows benchmark's part (a): one spout emitting small acked tuples as
 * fast as `topology.max.spout.pending` lets it, summed in tumbling windows of
 * `bench.window.count` tuples, the sums counted by a sink. The aggregation
 * is done one of two ways (`bench.window.impl`):
 * - `windowed`: a WindowedBolt (`withTumblingWindow(Count.of(n))`);
 * - `buffer`: a hand-written Bolt keeping its own buffer — what a user writes
 *   without windows, with correct acking: the sum anchored to every buffered
 *   tuple, then each acked.
 *
 *   spout → sum (windowed | buffer) → sink
 */
import {
  BasicBolt,
  Bolt,
  Count,
  Spout,
  TopologyBuilder,
  WindowedBolt,
  type Conf,
  type OutputCollector,
  type OutputFieldsDeclarer,
  type SpoutOutputCollector,
  type TopologyContext,
  type TopologyModuleContext,
  type Tuple,
  type TupleWindow,
} from 'hstorm';

class NumberSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private i = 0;

  override open(_conf: Conf, _ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
  }

  nextTuple(): void {
    const id = this.i++;
    this.collector.emit([id, id % 100], { messageId: id });
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id', 'value']);
  }
}

class WindowSum extends WindowedBolt {
  private collector!: OutputCollector;

  override prepare(_conf: Conf, _ctx: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
  }

  execute(w: TupleWindow): void {
    let s = 0;
    for (const t of w.get()) s += t.getInteger(1);
    this.collector.emit([s]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['sum']);
  }
}

class BufferSum extends Bolt {
  private collector!: OutputCollector;
  private buffer: Tuple[] = [];

  constructor(private readonly size: number) {
    super();
  }

  override prepare(_conf: Conf, _ctx: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
  }

  execute(t: Tuple): void {
    this.buffer.push(t);
    if (this.buffer.length < this.size) return;
    const window = this.buffer;
    this.buffer = [];
    let s = 0;
    for (const x of window) s += x.getInteger(1);
    this.collector.emit([s], { anchors: window });
    for (const x of window) this.collector.ack(x);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['sum']);
  }
}

class Sink extends BasicBolt {
  execute(): void {}
}

export default ({ config }: TopologyModuleContext) => {
  const n = (config['bench.window.count'] as number | undefined) ?? 100;
  const b = new TopologyBuilder();
  b.setSpout('spout', () => new NumberSpout(), 1);
  b.setBolt('sum', config['bench.window.impl'] === 'buffer' ? () => new BufferSum(n) : () => new WindowSum().withTumblingWindow(Count.of(n)), 1).shuffleGrouping('spout');
  b.setBolt('sink', () => new Sink(), 1).shuffleGrouping('sum');
  return b.createTopology({ 'topology.workers': 2, 'topology.max.spout.pending': 2000 });
};
