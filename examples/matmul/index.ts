/**
 * Matrix multiplication on CPU bolts: a spout generates pairs of n×n
 * matrices, a multiply bolt computes the product, a sink checks each
 * product's checksum against the one the spout computed.
 *
 *   hstorm local examples/matmul --duration 10 -c matmul.dim=128
 *
 * Config: matmul.dim (64), matmul.parallelism (2), matmul.seed (1).
 */
import { BasicBolt, Spout, TopologyBuilder, type BasicOutputCollector, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Tuple, type TopologyModuleContext } from 'hstorm';
import { checksumMatches, expectedProductSum, multiply, randomMatrix, seededRandom, sum } from './matrix.js';

export class MatrixSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private n = 64;
  private rand: () => number = Math.random;
  private next = 0;
  private readonly inFlight = new Map<number, unknown[]>();
  private readonly replay: number[] = [];

  override open(conf: Conf, ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    this.n = (conf['matmul.dim'] as number | undefined) ?? 64;
    this.rand = seededRandom(((conf['matmul.seed'] as number | undefined) ?? 1) * 7919 + ctx.taskIndex);
  }

  nextTuple(): void {
    const replayId = this.replay.shift();
    if (replayId !== undefined) {
      this.collector.emit(this.inFlight.get(replayId)!, { messageId: replayId });
      return;
    }
    const id = this.next++;
    const a = randomMatrix(this.n, this.rand);
    const b = randomMatrix(this.n, this.rand);
    const values = [id, this.n, a, b, expectedProductSum(a, b, this.n)];
    this.inFlight.set(id, values);
    this.collector.emit(values, { messageId: id });
  }

  override ack(id: unknown): void {
    this.inFlight.delete(id as number);
  }

  override fail(id: unknown): void {
    this.replay.push(id as number);
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id', 'n', 'a', 'b', 'expected']);
  }
}

export class MultiplyBolt extends BasicBolt {
  execute(t: Tuple, out: BasicOutputCollector): void {
    const n = t.getNumberByField('n');
    const c = multiply(t.getValueByField('a') as Float32Array, t.getValueByField('b') as Float32Array, n);
    out.emit([t.getValueByField('id'), n, sum(c), t.getValueByField('expected')]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id', 'n', 'sum', 'expected']);
  }
}

/** Verifies every product; a wrong one fails its tuple (and is counted). */
export class ChecksumSink extends BasicBolt {
  verified = 0;
  wrong = 0;
  private log: TopologyContext['log'] | null = null;

  override prepare(_conf: Conf, ctx: TopologyContext): void {
    this.log = ctx.log;
  }

  execute(t: Tuple): void {
    const n = t.getNumberByField('n');
    const expected = t.getNumberByField('expected');
    if (!checksumMatches(t.getNumberByField('sum'), expected, n, Math.abs(expected) + n)) {
      this.wrong++;
      this.log?.error({ id: t.getValueByField('id'), sum: t.getValueByField('sum'), expected }, 'wrong product checksum');
      throw new Error(`product ${String(t.getValueByField('id'))} has a wrong checksum`);
    }
    this.verified++;
  }
}

export default ({ config }: TopologyModuleContext) => {
  const p = (config['matmul.parallelism'] as number | undefined) ?? 2;
  const b = new TopologyBuilder();
  b.setSpout('matrices', () => new MatrixSpout(), 1);
  b.setBolt('multiply', () => new MultiplyBolt(), p).shuffleGrouping('matrices');
  b.setBolt('verify', () => new ChecksumSink(), 1).shuffleGrouping('multiply');
  return b.createTopology({ 'topology.workers': 2, 'topology.max.spout.pending': 64 });
};
