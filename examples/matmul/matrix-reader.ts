/**
 * MatrixReader (the paper's Fig. 9 spout): emits pairs of n×n matrices with
 * the checksum their product must have, `[id, n, a, b, expected]`.
 *
 * - `matmul.file` set: reads pairs from a file written by generate.js; spout
 *   task i of k owns pairs i, i+k, …, and starts over at the end of the file
 *   (so a short file feeds a run of any length). The checksum of a pair is
 *   computed once and remembered.
 * - unset: generates pairs in memory, deterministically (seed
 *   `matmul.seed` × 7919 + task index), so the example runs with no file.
 *
 * Acked messages are forgotten; failed ones are replayed, the same values
 * again. `matmul.messages` (per task, 0 = unbounded) lets a test count
 * exactly. With `{ split: true }` it emits through a StreamSplit on the
 * streams `cpu` and `gpu` (the hybrid example).
 */
import { StreamSplit, Spout, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Values } from 'hstorm';
import { expectedProductSum, randomMatrix, seededRandom } from './matrix.js';
import { MatrixFileReader } from './matrix-file.js';

export const MATRIX_FIELDS = ['id', 'n', 'a', 'b', 'expected'] as const;

/** Ids of different spout tasks never collide: task index × ID_SPACE + sequence. */
const ID_SPACE = 1_000_000_000;

export interface MatrixReaderOptions {
  /** Emit through an adaptive StreamSplit on streams `cpu` / `gpu` instead of the default stream. */
  split?: boolean;
  /** Components behind the split's streams (the `capacity` policy reads their load). */
  cpuComponent?: string;
  gpuComponent?: string;
}

export class MatrixReader extends Spout {
  private collector!: SpoutOutputCollector;
  private ctx!: TopologyContext;
  private n = 64;
  private limit = 0;
  private next = 0;
  private rand: () => number = Math.random;
  private file: MatrixFileReader | null = null;
  /** File mode: the pair index this task reads next, and the checksums already computed. */
  private filePos = 0;
  private readonly expectedByPair = new Map<number, number>();
  private split: StreamSplit | null = null;
  private readonly inFlight = new Map<number, Values>();
  private readonly replay: number[] = [];

  constructor(private readonly options: MatrixReaderOptions = {}) {
    super();
  }

  override open(conf: Conf, ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    this.ctx = ctx;
    this.limit = (conf['matmul.messages'] as number | undefined) ?? 0;
    const path = conf['matmul.file'] as string | undefined;
    if (path) {
      this.file = new MatrixFileReader(path);
      this.n = this.file.header.n;
      this.filePos = ctx.taskIndex;
      if (this.file.header.count <= ctx.taskIndex) {
        ctx.log.warn({ file: path, pairs: this.file.header.count, task: ctx.taskIndex }, 'the matrix file has fewer pairs than spout tasks; this task re-reads pair 0');
        this.filePos = 0;
      }
    } else {
      this.n = (conf['matmul.dim'] as number | undefined) ?? 64;
      this.rand = seededRandom(((conf['matmul.seed'] as number | undefined) ?? 1) * 7919 + ctx.taskIndex);
    }
    if (this.options.split) {
      const sides = this.options.cpuComponent && this.options.gpuComponent ? { cpuComponent: this.options.cpuComponent, gpuComponent: this.options.gpuComponent } : {};
      this.split = new StreamSplit(ctx, conf, sides);
    }
  }

  nextTuple(): void {
    const replayId = this.replay.shift();
    if (replayId !== undefined) {
      const values = this.inFlight.get(replayId);
      if (values) this.emit(values, replayId);
      return;
    }
    if (this.limit > 0 && this.next >= this.limit) return;
    const id = this.ctx.taskIndex * ID_SPACE + this.next++;
    const { a, b, expected } = this.file ? this.fromFile() : this.generated();
    const values: Values = [id, this.n, a, b, expected];
    this.inFlight.set(id, values);
    this.emit(values, id);
  }

  override ack(id: unknown): void {
    this.inFlight.delete(id as number);
  }

  override fail(id: unknown): void {
    this.replay.push(id as number);
  }

  override close(): void {
    this.split?.close();
    this.file?.close();
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    if (this.options.split) StreamSplit.declareStreams(d, MATRIX_FIELDS);
    else d.declare(MATRIX_FIELDS);
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private emit(values: Values, id: number): void {
    if (this.split) this.split.emit(this.collector, values, { messageId: id });
    else this.collector.emit(values, { messageId: id });
  }

  private generated(): { a: Float32Array; b: Float32Array; expected: number } {
    const a = randomMatrix(this.n, this.rand);
    const b = randomMatrix(this.n, this.rand);
    return { a, b, expected: expectedProductSum(a, b, this.n) };
  }

  private fromFile(): { a: Float32Array; b: Float32Array; expected: number } {
    const file = this.file!;
    const i = this.filePos;
    const step = Math.max(1, this.ctx.componentTasks.length);
    this.filePos = i + step < file.header.count ? i + step : Math.min(this.ctx.taskIndex, file.header.count - 1);
    const { a, b } = file.read(i);
    let expected = this.expectedByPair.get(i);
    if (expected === undefined) {
      expected = expectedProductSum(a, b, this.n);
      this.expectedByPair.set(i, expected);
    }
    return { a, b, expected };
  }
}
