/**
 * Components shared by the paper-experiment fixtures (sequential-add,
 * gpu-matmul): a spout of n×n matrix pairs, a GPU bolt that adds B to its
 * matrix (the paper's Sequential Topology step), a GPU bolt that multiplies
 * (the paper's MatrixDealer), and a checker that verifies every result by a
 * checksum, so a benchmark never counts wrong answers as throughput.
 *
 * The matrix helpers are the examples' (examples/matmul/matrix.ts).
 *
 * Tuples carry `[id, n, m, b, expected]`: `m` the running matrix, `b` the
 * addend (null after a product), `expected` the checksum the checker wants.
 */
import type { IKernelFunctionThis } from 'gpu.js';
import {
  BasicBolt,
  GpuBolt,
  Spout,
  type BatchInputs,
  type BatchResult,
  type Conf,
  type GpuEmit,
  type KernelSpec,
  type OutputFieldsDeclarer,
  type SpoutOutputCollector,
  type TopologyContext,
  type Tuple,
} from 'hstorm';
import { expectedProductSum, randomMatrix, seededRandom, sum } from '../../examples/matmul/matrix.js';

export { sum };

export const FIELDS = ['id', 'n', 'm', 'b', 'expected'] as const;

/** How the checker computes its expectation; set by the topology module through config. */
export type MatrixJob = { kind: 'add'; steps: number } | { kind: 'multiply' };

/** Distinct random pairs the spout cycles through: generating fresh matrices per tuple would cost more CPU than the bolts. */
const POOL = 8;

export function readJob(conf: Conf): MatrixJob {
  return conf['fixture.job'] === 'multiply' ? { kind: 'multiply' } : { kind: 'add', steps: (conf['fixture.steps'] as number | undefined) ?? 4 };
}

/** Emits matrix pairs as fast as `topology.max.spout.pending` lets it; failed ids are replayed. */
export class MatrixSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private pairs: { a: Float32Array; b: Float32Array; expected: number }[] = [];
  private n = 32;
  private next = 0;
  private readonly replay: number[] = [];

  override open(conf: Conf, ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    this.n = (conf['fixture.dim'] as number | undefined) ?? 32;
    const job = readJob(conf);
    const rand = seededRandom(7919 + ctx.taskIndex);
    for (let i = 0; i < POOL; i++) {
      const a = randomMatrix(this.n, rand);
      const b = randomMatrix(this.n, rand);
      const expected = job.kind === 'multiply' ? expectedProductSum(a, b, this.n) : sum(a) + job.steps * sum(b);
      this.pairs.push({ a, b, expected });
    }
  }

  nextTuple(): void {
    const id = this.replay.shift() ?? this.next++;
    const p = this.pairs[id % POOL]!;
    this.collector.emit([id, this.n, p.a, p.b, p.expected], { messageId: id });
  }

  override fail(id: unknown): void {
    this.replay.push(id as number);
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare([...FIELDS]);
  }
}

function addKernel(this: IKernelFunctionThis, m: number[][][], b: number[][][]): number {
  return m[this.thread.z]![this.thread.y]![this.thread.x]! + b[this.thread.z]![this.thread.y]![this.thread.x]!;
}

function mulKernel(this: IKernelFunctionThis<{ n: number }>, a: number[][][], b: number[][][]): number {
  let s = 0;
  for (let k = 0; k < this.constants.n; k++) s += a[this.thread.z]![this.thread.y]![k]! * b[this.thread.z]![k]![this.thread.x]!;
  return s;
}

/** Shared batching of `m` and `b` for both matrix kernels. */
abstract class MatrixGpuBolt extends GpuBolt {
  protected n = 32;

  protected override setup(conf: Conf): void {
    this.n = (conf['fixture.dim'] as number | undefined) ?? 32;
  }

  toInputs(tuples: readonly Tuple[], batch: BatchInputs): unknown[] {
    const shape = [this.n, this.n] as const;
    return [batch.pack(tuples.map((t) => t.getValueByField('m') as Float32Array), shape), batch.pack(tuples.map((t) => t.getValueByField('b') as Float32Array), shape)];
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare([...FIELDS]);
  }
}

/** m + b, one thread per cell; a batch of tuples is one launch along z. */
export class AddGpuBolt extends MatrixGpuBolt {
  kernel(): KernelSpec {
    return { fn: addKernel, output: [this.n, this.n] };
  }

  emitResults(result: BatchResult, tuples: readonly Tuple[], emit: GpuEmit): void {
    tuples.forEach((t, i) => emit(t, [t.getValueByField('id'), this.n, result.item(i), t.getValueByField('b'), t.getValueByField('expected')]));
  }
}

/** m · b (the paper's MatrixDealer). */
export class MultiplyGpuBolt extends MatrixGpuBolt {
  kernel(): KernelSpec {
    return { fn: mulKernel, output: [this.n, this.n], constants: { n: this.n }, loopMaxIterations: this.n };
  }

  emitResults(result: BatchResult, tuples: readonly Tuple[], emit: GpuEmit): void {
    tuples.forEach((t, i) => emit(t, [t.getValueByField('id'), this.n, result.item(i), null, t.getValueByField('expected')]));
  }
}

/** Verifies each result's checksum; a wrong one throws, which fails the tuple and shows in the run's failed count. */
export class MatrixChecker extends BasicBolt {
  private steps = 4;
  private multiply = false;

  override prepare(conf: Conf): void {
    const job = readJob(conf);
    this.multiply = job.kind === 'multiply';
    if (job.kind === 'add') this.steps = job.steps;
  }

  execute(t: Tuple): void {
    const n = t.getNumberByField('n');
    const expected = t.getNumberByField('expected');
    const got = sum(t.getValueByField('m') as Float32Array);
    // float32 rounding: each cell carries ~1e-7 relative error per operation, summed over n² cells
    const tol = this.multiply ? 1e-5 * n * Math.max(1, Math.abs(expected) + n) : 1e-6 * n * n * (this.steps + 1) * 4;
    if (Math.abs(got - expected) > tol) throw new Error(`matrix ${String(t.getValueByField('id'))}: checksum ${got} ≠ ${expected}`);
  }
}
