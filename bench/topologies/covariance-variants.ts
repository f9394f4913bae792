/**
 * The windows benchmark's part (b): the sliding-covariance computation
 * (examples/sliding-covariance: X'ᵀ·X' over the last 64 readings, every 16)
 * three ways, chosen by `bench.cov.impl`, on the gpu.js backend
 * `bench.cov.backend` where a kernel runs:
 * - `gpu-windowed`: GpuWindowedBolt, one kernel launch per window;
 * - `gpu-per-tuple`: a GpuBolt computing each reading's outer product x'·x'ᵀ
 *   (batched per launch as GpuBolt batches tuples), then a plain-JS windowed
 *   bolt summing the products of each window — a GPU bolt that sees tuples,
 *   not windows;
 * - `cpu-windowed`: the plain-JS WindowedBolt (float64 loops).
 *
 *   readings → covariance (one of the three) → sink
 *
 * The spout sends readings as fast as `topology.max.spout.pending` lets it,
 * cycling through a fixed seeded stream.
 */
import type { IKernelFunctionThis } from 'gpu.js';
import {
  BasicBolt,
  Count,
  GpuBolt,
  Spout,
  TopologyBuilder,
  WindowedBolt,
  type BatchInputs,
  type BatchResult,
  type Conf,
  type GpuEmit,
  type KernelSpec,
  type OutputCollector,
  type OutputFieldsDeclarer,
  type SpoutOutputCollector,
  type TopologyContext,
  type TopologyModuleContext,
  type Tuple,
  type TupleWindow,
} from 'hstorm';
import { JsCovariance, KernelCovariance, COVARIANCE_FIELDS } from '../../examples/sliding-covariance/covariance-bolts.js';
import { anomalous, rowOf, statsOf, windowKey } from '../../examples/sliding-covariance/covariance.js';
import { readingStream } from '../../examples/sliding-covariance/readings.js';

export const CHANNELS = 8;
const WINDOW = 64;
const SLIDE = 16;

class CyclingReadings extends Spout {
  private collector!: SpoutOutputCollector;
  private rows: number[][] = [];
  private i = 0;

  override open(_conf: Conf, _ctx: TopologyContext, c: SpoutOutputCollector): void {
    this.collector = c;
    this.rows = readingStream(4096, CHANNELS, 3);
  }

  nextTuple(): void {
    const id = this.i++;
    this.collector.emit([id, this.rows[id % this.rows.length]!], { messageId: id });
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id', 'readings']);
  }
}

/** out[z][y][x] = row[z][y]·row[z][x]: each reading's outer product, one item per tuple. */
function outer(this: IKernelFunctionThis, row: number[][]): number {
  return row[this.thread.z]![this.thread.y]! * row[this.thread.z]![this.thread.x]!;
}

class OuterProduct extends GpuBolt {
  kernel(): KernelSpec {
    return { fn: outer, output: [CHANNELS + 1, CHANNELS + 1] };
  }

  toInputs(tuples: readonly Tuple[], batch: BatchInputs): unknown[] {
    return [batch.pack(tuples.map(rowOf), [CHANNELS + 1])];
  }

  emitResults(result: BatchResult, tuples: readonly Tuple[], emit: GpuEmit): void {
    tuples.forEach((t, i) => emit(t, [t.getValueByField('id'), t.getValueByField('readings'), Array.from(result.item(i))]));
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id', 'readings', 'outer']);
  }
}

/** Sums the outer products of a window: the same M = X'ᵀ·X', a row at a time. */
class SumOuter extends WindowedBolt {
  private collector!: OutputCollector;

  override prepare(_conf: Conf, _ctx: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
  }

  execute(w: TupleWindow): void {
    const m = new Float64Array((CHANNELS + 1) ** 2);
    for (const t of w.get()) {
      const o = t.getValueByField('outer') as number[];
      for (let i = 0; i < m.length; i++) m[i]! += o[i]!;
    }
    const stats = statsOf(m, CHANNELS);
    this.collector.emit([windowKey(w.get()), stats.n, stats.cov, anomalous(stats, w.getNew()), 'per-tuple']);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(COVARIANCE_FIELDS);
  }
}

class Sink extends BasicBolt {
  execute(): void {}
}

export default ({ config }: TopologyModuleContext) => {
  const impl = (config['bench.cov.impl'] as string | undefined) ?? 'gpu-windowed';
  const backend = (config['bench.cov.backend'] as string | undefined) ?? 'webasm';
  const length = Count.of(WINDOW);
  const slide = Count.of(SLIDE);
  const b = new TopologyBuilder();
  b.setSpout('readings', () => new CyclingReadings(), 1);
  if (impl === 'gpu-windowed') {
    b.setBolt('covariance', () => new KernelCovariance().withWindow(length, slide), 1).shuffleGrouping('readings').addConfiguration('topology.gpu.backend', backend);
  } else if (impl === 'gpu-per-tuple') {
    b.setBolt('outer', () => new OuterProduct(), 1).shuffleGrouping('readings').addConfiguration('topology.gpu.backend', backend);
    b.setBolt('covariance', () => new SumOuter().withWindow(length, slide), 1).shuffleGrouping('outer');
  } else {
    b.setBolt('covariance', () => new JsCovariance().withWindow(length, slide), 1).shuffleGrouping('readings');
  }
  b.setBolt('sink', () => new Sink(), 1).shuffleGrouping('covariance');
  return b.createTopology({ 'topology.workers': 2, 'topology.max.spout.pending': 1000, 'covariance.channels': CHANNELS });
};
