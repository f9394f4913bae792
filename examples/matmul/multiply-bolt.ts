/**
 * The CPU MatrixDealer of native Storm: multiplies each pair in plain
 * JavaScript on the executor's thread (i-k-j loops, matrix.ts). Same tuples
 * in and out as MatrixDealer, so the CPU and GPU topologies share their
 * reader and printer. It has no backend to report: it is the baseline.
 */
import { BasicBolt, type BasicOutputCollector, type OutputFieldsDeclarer, type Tuple } from 'hstorm';
import { multiply, sum } from './matrix.js';

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
