/**
 * The transport benchmark's topology: one spout emitting small tuples as fast
 * as it may (or at `bench.rate` tuples/s), one bolt that only counts them.
 * `bench.acking`: emit with message ids (tracked by ackers) or without.
 */
import { BasicBolt, Spout, TopologyBuilder, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Tuple, type TopologyModuleContext } from 'hstorm';

class FastSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private i = 0;
  private acking = false;
  private rate = 0;
  private started = 0;

  override open(conf: Conf, _ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    this.acking = conf['bench.acking'] === true;
    this.rate = (conf['bench.rate'] as number | undefined) ?? 0;
  }

  nextTuple(): void {
    if (this.rate > 0) {
      // Paced: emit only as many as the rate allows by now.
      const now = performance.now();
      if (this.started === 0) this.started = now;
      if (this.i >= ((now - this.started) / 1000) * this.rate) return;
    }
    const id = this.i++;
    this.collector.emit([id, 'payload'], this.acking ? { messageId: id } : undefined);
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['n', 'payload']);
  }
}

class CountBolt extends BasicBolt {
  count = 0;
  execute(_t: Tuple): void {
    this.count++;
  }
}

export default ({ config }: TopologyModuleContext) => {
  const b = new TopologyBuilder();
  b.setSpout('spout', () => new FastSpout(), 1);
  b.setBolt('bolt', () => new CountBolt(), 1).shuffleGrouping('spout');
  return b.createTopology({
    'topology.workers': 2,
    'topology.acker.executors': config['bench.acking'] === true ? 1 : 0,
    // acking: the default window (1000 per spout task); without acking only the queues hold the spout back
    'topology.max.spout.pending': config['bench.acking'] === true ? 1000 : null,
  });
};
