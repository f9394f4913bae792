/**
 * One step of the Sequential Topology: a GpuBolt that adds the tuple's addend
 * B to its running matrix M (M' = M + B), many tuples per launch along z.
 * Four of them in a chain turn A into A + 4B for the checker to verify.
 */
import type { IKernelFunctionThis } from 'gpu.js';
import { GpuBolt, type BatchInputs, type BatchResult, type Conf, type GpuEmit, type KernelSpec, type OutputFieldsDeclarer, type TopologyContext, type Tuple } from 'hstorm';

export const SEQUENTIAL_FIELDS = ['id', 'n', 'a', 'b', 'm', 'steps'] as const;

/** out[z][y][x] = m[z][y][x] + b[z][y][x]: one thread per output cell. */
function add(this: IKernelFunctionThis, m: number[][][], b: number[][][]): number {
  return m[this.thread.z]![this.thread.y]![this.thread.x]! + b[this.thread.z]![this.thread.y]![this.thread.x]!;
}

export function addKernel(n: number): KernelSpec {
  return { fn: add, output: [n, n] };
}

export class MatrixAdder extends GpuBolt {
  private n = 64;

  protected override setup(conf: Conf, _context: TopologyContext): void {
    this.n = (conf['sequential.dim'] as number | undefined) ?? 64;
  }

  kernel(): KernelSpec {
    return addKernel(this.n);
  }

  toInputs(tuples: readonly Tuple[], batch: BatchInputs): unknown[] {
    const shape = [this.n, this.n] as const;
    return [batch.pack(tuples.map((t) => t.getValueByField('m') as Float32Array), shape), batch.pack(tuples.map((t) => t.getValueByField('b') as Float32Array), shape)];
  }

  emitResults(result: BatchResult, tuples: readonly Tuple[], emit: GpuEmit): void {
    tuples.forEach((t, i) => emit(t, [t.getValueByField('id'), this.n, t.getValueByField('a'), t.getValueByField('b'), result.item(i), t.getNumberByField('steps') + 1]));
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(SEQUENTIAL_FIELDS);
  }
}
