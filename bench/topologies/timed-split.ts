/**
 * The θ benchmark's hybrid topology (H-Storm Fig. 12, DESIGN §8) without a
 * GPU: a paced spout emits through the adaptive split to a "cpu" bolt and a
 * "gpu" bolt whose service times are fixed by awaiting a timer, the "gpu" one
 * 4× shorter (defaults 40 ms and 10 ms), both feeding one sink. Timers, not
 * kernels, because this machine has no GPU and a CPU backend would not be
 * faster than the CPU bolt; a timer also frees the CPU, so the two sides do
 * not compete for the 2 cores and the ratio stays 4:1.
 *
 * Capacity: one task each, 25/s + 100/s = 125/s, best split γ = 0.8. The
 * spout is paced (`fixture.rate` tuples/s, default 100) below that total, so
 * at a good γ neither side queues and throughput is the offered rate; at a
 * poor γ the "cpu" side saturates, tuples wait for `max.spout.pending`, and
 * throughput drops — which is what θ changes.
 *
 * Config (user keys): fixture.cpu.ms (40), fixture.gpu.ms (10), fixture.rate (100).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BasicBolt,
  Spout,
  StreamSplit,
  TopologyBuilder,
  type BasicOutputCollector,
  type Conf,
  type OutputFieldsDeclarer,
  type SpoutOutputCollector,
  type TopologyContext,
  type TopologyModuleContext,
  type Tuple,
} from 'hstorm';

function num(conf: Conf, key: string, fallback: number): number {
  const v = conf[key];
  return typeof v === 'number' ? v : fallback;
}

class PacedSplitSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private split!: StreamSplit;
  private intervalMs = 10;
  private due = 0;
  private next = 0;
  private readonly replay: number[] = [];

  override open(conf: Conf, ctx: TopologyContext, c: SpoutOutputCollector): void {
    this.collector = c;
    this.split = new StreamSplit(ctx, conf);
    this.intervalMs = 1000 / num(conf, 'fixture.rate', 100);
    this.due = performance.now();
  }

  nextTuple(): void {
    const now = performance.now();
    if (now < this.due) return;
    // keep the schedule without drift, but never burst to catch up after a stall (that would saturate a side on its own)
    this.due = Math.max(this.due + this.intervalMs, now);
    const id = this.replay.shift() ?? this.next++;
    this.split.emit(this.collector, [id], { messageId: id });
  }

  override fail(id: unknown): void {
    this.replay.push(id as number);
  }

  override close(): void {
    this.split.close();
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    StreamSplit.declareStreams(d, ['id']);
  }
}

/** Takes a fixed time per tuple, one tuple at a time, without using the CPU meanwhile. */
class TimedBolt extends BasicBolt {
  private ms = 0;

  constructor(
    private readonly key: string,
    private readonly fallbackMs: number,
  ) {
    super();
  }

  override prepare(conf: Conf): void {
    this.ms = num(conf, this.key, this.fallbackMs);
  }

  async execute(t: Tuple, c: BasicOutputCollector): Promise<void> {
    await sleep(this.ms);
    c.emit([t.getValue(0)]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id']);
  }
}

class SinkBolt extends BasicBolt {
  execute(): void {}
}

export default (_ctx: TopologyModuleContext) => {
  const b = new TopologyBuilder();
  b.setSpout('source', () => new PacedSplitSpout(), 1);
  b.setBolt('cpu', () => new TimedBolt('fixture.cpu.ms', 40), 1).shuffleGrouping('source', 'cpu');
  b.setBolt('gpu', () => new TimedBolt('fixture.gpu.ms', 10), 1).shuffleGrouping('source', 'gpu');
  b.setBolt('sink', () => new SinkBolt(), 1).globalGrouping('cpu').globalGrouping('gpu');
  return b.createTopology({
    'topology.workers': 2,
    'topology.acker.executors': 1,
    'topology.max.spout.pending': 64,
    'topology.message.timeout.secs': 30,
    'hstorm.split.window.ms': 500,
    'hstorm.split.sample.ms': 100,
  });
};
