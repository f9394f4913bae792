/**
 * The two ways the example computes a window: `KernelCovariance`, a
 * GpuWindowedBolt whose gpu.js kernel computes M = X'ᵀ·X' in one launch per
 * window (GPU backend in a GPU worker, CPU backend in a CPU worker), and
 * `JsCovariance`, a plain WindowedBolt doing the same in float64 loops, the
 * reference. Both emit [key, n, cov, anomaly, source] per window.
 */
import type { IKernelFunctionThis } from 'gpu.js';
import { GpuWindowedBolt, WindowedBolt, type BatchResult, type Conf, type GpuWindowEmit, type KernelSpec, type OutputCollector, type OutputFieldsDeclarer, type TopologyContext, type TupleWindow, type WindowBatch } from 'hstorm';
import { anomalous, rowOf, scatterMatrix, statsOf, windowKey } from './covariance.js';

export const COVARIANCE_FIELDS = ['key', 'n', 'cov', 'anomaly', 'source'];

/** M[z][y][x] = Σ_r X[z][r][y]·X[z][r][x] over the window's rows (padding rows are zero and add nothing). */
function scatter(this: IKernelFunctionThis<{ rows: number }>, x: number[][][]): number {
  let s = 0;
  for (let r = 0; r < this.constants.rows; r++) s += x[this.thread.z]![r]![this.thread.y]! * x[this.thread.z]![r]![this.thread.x]!;
  return s;
}

/** The kernel for `channels` readings per row and windows of `rows` rows (also what the windows benchmark runs). */
export function scatterKernel(channels: number, rows: number): KernelSpec {
  return { fn: scatter, output: [channels + 1, channels + 1], constants: { rows }, loopMaxIterations: rows };
}

export class KernelCovariance extends GpuWindowedBolt {
  private channels = 8;

  protected override setup(conf: Conf): void {
    this.channels = (conf['covariance.channels'] as number | undefined) ?? 8;
  }

  kernel(capacity: number): KernelSpec {
    return scatterKernel(this.channels, capacity);
  }

  toInputs(windows: readonly TupleWindow[], batch: WindowBatch): unknown[] {
    return [batch.packRows(windows.map((w) => w.get().map(rowOf)), this.channels + 1)];
  }

  emitResults(result: BatchResult, windows: readonly TupleWindow[], emit: GpuWindowEmit): void {
    windows.forEach((w, i) => {
      const stats = statsOf(result.item(i), this.channels);
      emit(i, [windowKey(w.get()), stats.n, stats.cov, anomalous(stats, w.getNew()), 'kernel']);
    });
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(COVARIANCE_FIELDS);
  }
}

export class JsCovariance extends WindowedBolt {
  private collector!: OutputCollector;
  private channels = 8;

  override prepare(conf: Conf, _ctx: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
    this.channels = (conf['covariance.channels'] as number | undefined) ?? 8;
  }

  execute(w: TupleWindow): void {
    const stats = statsOf(scatterMatrix(w.get().map(rowOf)), this.channels);
    this.collector.emit([windowKey(w.get()), stats.n, stats.cov, anomalous(stats, w.getNew()), 'js']);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(COVARIANCE_FIELDS);
  }
}
