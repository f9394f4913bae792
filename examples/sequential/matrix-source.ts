/**
 * The Sequential Topology's spout: `[id, n, a, b, m = a, steps = 0]`.
 * It cycles through a small pool of deterministic random pairs
 * (`sequential.pool`, default 8): fresh matrices per tuple would cost the
 * spout more CPU than an addition costs a bolt. Failed messages are replayed.
 */
import { Spout, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Values } from 'hstorm';
import { randomMatrix, seededRandom } from '../matmul/matrix.js';
import { SEQUENTIAL_FIELDS } from './matrix-adder.js';

const ID_SPACE = 1_000_000_000;

export class MatrixSource extends Spout {
  private collector!: SpoutOutputCollector;
  private ctx!: TopologyContext;
  private n = 64;
  private pool: { a: Float32Array; b: Float32Array }[] = [];
  private next = 0;
  private limit = 0;
  private readonly inFlight = new Map<number, Values>();
  private readonly replay: number[] = [];

  override open(conf: Conf, ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    this.ctx = ctx;
    this.n = (conf['sequential.dim'] as number | undefined) ?? 64;
    this.limit = (conf['sequential.messages'] as number | undefined) ?? 0;
    const rand = seededRandom(((conf['sequential.seed'] as number | undefined) ?? 1) * 7919 + ctx.taskIndex);
    const size = Math.max(1, (conf['sequential.pool'] as number | undefined) ?? 8);
    this.pool = Array.from({ length: size }, () => ({ a: randomMatrix(this.n, rand), b: randomMatrix(this.n, rand) }));
  }

  nextTuple(): void {
    const replayId = this.replay.shift();
    if (replayId !== undefined) {
      const values = this.inFlight.get(replayId);
      if (values) this.collector.emit(values, { messageId: replayId });
      return;
    }
    if (this.limit > 0 && this.next >= this.limit) return;
    const seq = this.next++;
    const id = this.ctx.taskIndex * ID_SPACE + seq;
    const { a, b } = this.pool[seq % this.pool.length]!;
    const values: Values = [id, this.n, a, b, a, 0];
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
    d.declare(SEQUENTIAL_FIELDS);
  }
}
