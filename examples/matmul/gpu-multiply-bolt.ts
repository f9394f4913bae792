/**
 * The matmul multiply step as a GpuBolt: the same tuples in and out as
 * MultiplyBolt (index.ts), so a hybrid topology can feed both from a split
 * spout and verify both with one sink. Many n×n products go into one launch
 * along z (output [n, n, B]).
 */
import { GpuBolt, type BatchInputs, type BatchResult, type Conf, type GpuEmit, type KernelSpec, type OutputFieldsDeclarer, type TopologyContext, type Tuple } from 'hstorm';
import type { IKernelFunctionThis } from 'gpu.js';
import { sum } from './matrix.js';

/** C[z] = A[z]·B[z] for every item z of the batch; one thread per output cell. */
function matmul(this: IKernelFunctionThis<{ n: number }>, a: number[][][], b: number[][][]): number {
  let s = 0;
  for (let k = 0; k < this.constants.n; k++) s += a[this.thread.z]![this.thread.y]![k]! * b[this.thread.z]![k]![this.thread.x]!;
  return s;
}

/** The kernel for n×n matrices (also what the gpu-bolt benchmark runs). */
export function matmulKernel(n: number): KernelSpec {
  return { fn: matmul, output: [n, n], constants: { n }, loopMaxIterations: n };
}

export class GpuMultiplyBolt extends GpuBolt {
  private n = 64;

  protected override setup(conf: Conf, _context: TopologyContext): void {
    this.n = (conf['matmul.dim'] as number | undefined) ?? 64;
  }

  kernel(): KernelSpec {
    return matmulKernel(this.n);
  }

  toInputs(tuples: readonly Tuple[], batch: BatchInputs): unknown[] {
    const shape = [this.n, this.n] as const;
    for (const t of tuples) {
      if (t.getNumberByField('n') !== this.n) throw new Error(`GpuMultiplyBolt is built for ${this.n}×${this.n} matrices, got n=${t.getNumberByField('n')} (set matmul.dim)`);
    }
    return [batch.pack(tuples.map((t) => t.getValueByField('a') as Float32Array), shape), batch.pack(tuples.map((t) => t.getValueByField('b') as Float32Array), shape)];
  }

  emitResults(result: BatchResult, tuples: readonly Tuple[], emit: GpuEmit): void {
    tuples.forEach((t, i) => emit(t, [t.getValueByField('id'), this.n, sum(result.item(i)), t.getValueByField('expected')]));
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id', 'n', 'sum', 'expected']);
  }
}
