/**
 * The grouping benchmark's topology: spouts emitting tracked tuples as fast
 * as topology.max.spout.pending allows, into a bolt whose tasks take
 * different times per tuple. The work is an awaited timer (like a call to a
 * GPU, a disk or a service), so a slow task holds only its own executor,
 * not its worker's thread, and the figures do not depend on how busy the
 * shared machine's cores are.
 *
 * Config (user keys):
 *   bench.grouping      shuffle | twoChoice | loadAwareShuffle
 *   bench.service.ms    time per tuple of a normal task
 *   bench.slow.factor   how much slower the slow task is (1: all equal)
 *   bench.slow.task     index (0-based) of the slow task
 *   bench.switch.ms     > 0: that long after prepare, the slow task becomes
 *                       normal and task `bench.switch.to` becomes slow
 *   bench.switch.to     index of the task that is slow after the switch
 */
import { BasicBolt, Spout, TopologyBuilder, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Tuple, type TopologyModuleContext } from 'hstorm';

class TrackedSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private i = 0;

  override open(_conf: Conf, _ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
  }

  nextTuple(): void {
    const id = this.i++;
    this.collector.emit([id], { messageId: id });
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['n']);
  }
}

class TimedWorkBolt extends BasicBolt {
  private normalMs = 1;
  private slowMs = 1;
  private slowBefore = false;
  private slowAfter = false;
  private switchAt = Infinity;

  override prepare(conf: Conf, ctx: TopologyContext): void {
    this.normalMs = conf['bench.service.ms'] as number;
    this.slowMs = this.normalMs * (conf['bench.slow.factor'] as number);
    this.slowBefore = ctx.taskIndex === conf['bench.slow.task'];
    const switchMs = (conf['bench.switch.ms'] as number | undefined) ?? 0;
    if (switchMs > 0) {
      this.switchAt = performance.now() + switchMs;
      this.slowAfter = ctx.taskIndex === conf['bench.switch.to'];
    } else {
      this.slowAfter = this.slowBefore;
    }
  }

  execute(_t: Tuple): Promise<void> {
    const slow = performance.now() < this.switchAt ? this.slowBefore : this.slowAfter;
    return new Promise((r) => setTimeout(r, slow ? this.slowMs : this.normalMs));
  }

  override declareOutputFields(): void {}
}

export default ({ config }: TopologyModuleContext) => {
  const b = new TopologyBuilder();
  b.setSpout('spout', () => new TrackedSpout(), 2);
  const work = b.setBolt('work', () => new TimedWorkBolt(), 4);
  const grouping = (config['bench.grouping'] as string | undefined) ?? 'shuffle';
  if (grouping === 'twoChoice') work.twoChoiceGrouping('spout');
  else if (grouping === 'loadAwareShuffle') work.loadAwareShuffleGrouping('spout');
  else if (grouping === 'shuffle') work.shuffleGrouping('spout');
  else throw new Error(`bench.grouping: "${grouping}"; allowed: shuffle, twoChoice, loadAwareShuffle`);
  return b.createTopology({
    'topology.workers': 2,
    'topology.max.spout.pending': 64,
    'bench.service.ms': 4,
    'bench.slow.factor': 4,
    'bench.slow.task': 0,
    'bench.switch.ms': 0,
    'bench.switch.to': 3,
  });
};
